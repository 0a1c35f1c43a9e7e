#include "analysis/detector_registry.h"

#include "analysis/detectors/batch_online_colocation.h"
#include "analysis/detectors/capacity_shortfall.h"
#include "analysis/detectors/cohort_comparison.h"
#include "analysis/detectors/critical_path_priority.h"
#include "analysis/detectors/dag_stacking.h"
#include "analysis/detectors/gpu_node_hoarding.h"
#include "analysis/detectors/idle_slots.h"
#include "analysis/detectors/over_request.h"
#include "analysis/detectors/pool_mismatch.h"
#include "analysis/detectors/scheduling_latency.h"
#include "analysis/detectors/shard_candidate.h"
#include "analysis/detectors/split_dependencies.h"
#include "analysis/detectors/stranded_resources.h"

namespace dagadvisor::analysis {
namespace {

// The one list. Adding a detector: its file, its test, docs/findings.md, and one line here.
struct Entry {
  DetectorPtr (*make)();
  bool (*enabled)(const config::Detectors&);
};

template <typename T, auto kSettings>
constexpr Entry entry() {
  return {[]() -> DetectorPtr { return std::make_unique<T>(); },
          [](const config::Detectors& d) {
            return (d.*kSettings).enabled;
          }};
}

const Entry kDetectors[] = {
    entry<GpuNodeHoarding, &config::Detectors::gpu_node_hoarding>(),
    entry<SplitDependencies, &config::Detectors::split_dependencies>(),
    entry<DagStacking, &config::Detectors::dag_stacking>(),
    entry<StrandedResources, &config::Detectors::stranded_resources>(),
    entry<CapacityShortfall, &config::Detectors::capacity_shortfall>(),
    entry<CriticalPathPriority, &config::Detectors::critical_path_priority>(),
    entry<PoolMismatch, &config::Detectors::pool_mismatch>(),
    entry<IdleSlots, &config::Detectors::idle_slots>(),
    entry<OverRequest, &config::Detectors::over_request>(),
    entry<BatchOnlineColocation, &config::Detectors::batch_online_colocation>(),
    entry<SchedulingLatency, &config::Detectors::scheduling_latency>(),
    entry<CohortComparison, &config::Detectors::cohort_comparison>(),
    entry<ShardCandidate, &config::Detectors::shard_candidate>(),
};

}  // namespace

std::vector<DetectorPtr> allDetectors() {
  std::vector<DetectorPtr> out;
  for (const Entry& entry : kDetectors) {
    out.push_back(entry.make());
  }
  return out;
}

std::vector<DetectorPtr> enabledDetectors(const config::Detectors& settings) {
  std::vector<DetectorPtr> out;
  for (const Entry& entry : kDetectors) {
    if (entry.enabled(settings)) {
      out.push_back(entry.make());
    }
  }
  return out;
}

}  // namespace dagadvisor::analysis
