#include "advice/kinds/over_request.h"

#include "advice/kinds/finding_groups.h"
#include "advice/patch_yaml.h"
#include "analysis/detectors/over_request.h"

namespace dagadvisor::advice {
namespace {

using analysis::OverRequestEvidence;

constexpr double kMiB = 1024.0 * 1024;

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
  const std::int64_t reclaim_cpu = e.reclaimable.cpu_millis;
  const std::int64_t reclaim_memory = e.reclaimable.memory_bytes;
  rec.title = f.summary;
  rec.action = "Lower the requests of " + ref.name + " to the observed use plus " +
               std::to_string(static_cast<int>(
                   config.detectors.get<analysis::OverRequestSettings>().headroom * 100)) +
               "% headroom (the CPU percentile and the memory peak of the usage window), so "
               "the full nodes it runs on have room for pending pods.";
  rec.impact_score = static_cast<double>(reclaim_cpu) / 1000;
  rec.impact = std::to_string(reclaim_cpu) + "m CPU and " +
               std::to_string(static_cast<long long>(static_cast<double>(reclaim_memory) / kMiB)) +
               " MiB of requests freed on contended nodes";
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
