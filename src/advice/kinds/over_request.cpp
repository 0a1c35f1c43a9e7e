#include "advice/kinds/over_request.h"

#include "advice/kinds/finding_groups.h"
#include "advice/patch_yaml.h"

namespace dagadvisor::advice {
namespace {

using nlohmann::json;

constexpr double kMiB = 1024.0 * 1024;

Recommendation adviseWorkload(const analysis::Finding& f, const config::Config& config) {
  const json& e = f.evidence;
  const WorkloadRef ref = workloadOf(e.value("owner_kind", ""), e.value("owner_name", ""));
  Recommendation rec;
  rec.kind = "over-request";
  rec.target = f.target;
  rec.evidence = {{"pods", cover(rec, {&f})}};
  RequestsPatchSpec spec{ref.api_version,
                         ref.kind,
                         e.value("namespace", ""),
                         ref.name,
                         ref.name,
                         e.value("recommended_cpu_millis", std::int64_t{0}),
                         e.value("recommended_memory_bytes", std::int64_t{0})};
  const std::string how = ref.kind.empty() ? "merge into the pod template of " + ref.name
                                           : "kubectl patch " + ref.kind + " " + ref.name + " -n " +
                                                 spec.namespace_ + " --patch-file <this document>";
  rec.patch_yaml = joinDocuments(
      {{how + "; the container name is assumed to be the workload's: requests are the pod's "
              "total, split them between containers if it has several",
        requestsPatch(spec)}});
  const auto reclaim_cpu = e.value("reclaimable_cpu_millis", std::int64_t{0});
  const auto reclaim_memory = e.value("reclaimable_memory_bytes", std::int64_t{0});
  rec.title = f.summary;
  rec.action = "Lower the requests of " + ref.name + " to the observed use plus " +
               std::to_string(static_cast<int>(config.detectors.over_request.headroom * 100)) +
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
