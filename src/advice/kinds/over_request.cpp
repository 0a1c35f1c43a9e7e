#include "advice/kinds/over_request.h"

#include "advice/kinds/finding_groups.h"
#include "advice/patch_yaml.h"
#include "analysis/detectors/over_request.h"

namespace dagadvisor::advice {
namespace {

using analysis::OverRequestEvidence;

constexpr double kMiB = 1024.0 * 1024;

std::string resources(const model::ResourceVector& r) {
  return std::to_string(r.cpu_millis) + "m CPU and " +
         std::to_string(static_cast<long long>(static_cast<double>(r.memory_bytes) / kMiB)) +
         " MiB";
}

Recommendation adviseWorkload(const analysis::Finding& f, const config::Config& config) {
  const auto& e = f.evidenceAs<OverRequestEvidence>();
  const WorkloadRef ref = workloadOf(e.owner_kind, e.owner_name);
  Recommendation rec;
  rec.kind = std::string(OverRequestEvidence::kKind);
  rec.target = f.target;
  rec.evidence = {{"pods", cover(rec, {&f})}};
  RequestsPatchSpec spec{ref.api_version,
                         ref.kind,
                         e.namespace_,
                         ref.name,
                         ref.name,
                         e.recommended.cpu_millis,
                         e.recommended.memory_bytes};
  const std::string how = ref.kind.empty() ? "merge into the pod template of " + ref.name
                                           : "kubectl patch " + ref.kind + " " + ref.name + " -n " +
                                                 spec.namespace_ + " --patch-file <this document>";
  rec.patch_yaml = joinDocuments(
      {{how + "; the container name is assumed to be the workload's: requests are the pod's "
              "total, split them between containers if it has several",
        requestsPatch(spec)}});
  rec.title = f.summary;
  const bool needed = e.needed != model::ResourceVector{};
  rec.action = "Lower the requests of " + ref.name + " to the observed use plus " +
               std::to_string(static_cast<int>(
                   config.detectors.get<analysis::OverRequestSettings>().headroom * 100)) +
               "% headroom (the CPU percentile and the memory peak of the usage window)" +
               (needed ? ", so the full nodes it runs on have room for pending pods."
                       : ". It is hygiene, not a fix for what pends now: no pending pod lacks "
                         "what it frees, where it frees it (another resource blocks them there, "
                         "or none pends).");
  rec.impact_score = f.impact;
  rec.impact = needed ? resources(e.needed) + " freed where pending pods lack it (of " +
                            resources(e.reclaimable) + " freed in all; measured use)"
                      : "frees nothing pending pods need now (" + resources(e.reclaimable) +
                            " of requests freed on contended nodes)";
  return rec;
}

}  // namespace

std::vector<Recommendation> adviseOverRequest(const FindingList& findings,
                                              const config::Config& config) {
  std::vector<Recommendation> out;
  for (const analysis::Finding* f : findings) {
    out.push_back(adviseWorkload(*f, config));
  }
  return out;
}

}  // namespace dagadvisor::advice
