#include "advice/kind_list.h"

#include "advice/kinds/batch_online_colocation.h"
#include "advice/kinds/capacity_shortfall.h"
#include "advice/kinds/cohort_comparison.h"
#include "advice/kinds/critical_path_priority.h"
#include "advice/kinds/dag_stacking.h"
#include "advice/kinds/gpu_node_hoarding.h"
#include "advice/kinds/idle_slots.h"
#include "advice/kinds/over_request.h"
#include "advice/kinds/pool_mismatch.h"
#include "advice/kinds/scheduling_latency.h"
#include "advice/kinds/shard_candidate.h"
#include "advice/kinds/split_dependencies.h"
#include "advice/kinds/stranded_resources.h"
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

namespace dagadvisor::advice {
namespace {

template <typename D, auto kSettings, Adviser kAdvise>
KindSpec kind() {
  return {D().info().kind, []() -> analysis::DetectorPtr { return std::make_unique<D>(); },
          [](const config::Detectors& d) { return (d.*kSettings).enabled; }, kAdvise};
}

using config::Detectors;
using namespace analysis;

// The order is the ranking's, first the kinds that free GPUs, then those that shorten runs.
const std::vector<KindSpec>& kinds() {
  static const std::vector<KindSpec> kKinds = {
      kind<GpuNodeHoarding, &Detectors::gpu_node_hoarding, &adviseGpuNodeHoarding>(),
      kind<SplitDependencies, &Detectors::split_dependencies, &adviseSplitDependencies>(),
      kind<DagStacking, &Detectors::dag_stacking, &adviseDagStacking>(),
      kind<StrandedResources, &Detectors::stranded_resources, &adviseStrandedResources>(),
      kind<CapacityShortfall, &Detectors::capacity_shortfall, &adviseCapacityShortfall>(),
      kind<CriticalPathPriority, &Detectors::critical_path_priority, &adviseCriticalPathPriority>(),
      kind<IdleSlots, &Detectors::idle_slots, &adviseIdleSlots>(),
      kind<ShardCandidate, &Detectors::shard_candidate, &adviseShardCandidate>(),
      kind<SchedulingLatency, &Detectors::scheduling_latency, &adviseSchedulingLatency>(),
      kind<BatchOnlineColocation, &Detectors::batch_online_colocation,
           &adviseBatchOnlineColocation>(),
      kind<PoolMismatch, &Detectors::pool_mismatch, &advisePoolMismatch>(),
      kind<OverRequest, &Detectors::over_request, &adviseOverRequest>(),
      kind<CohortComparison, &Detectors::cohort_comparison, &adviseCohortComparison>(),
  };
  return kKinds;
}

}  // namespace

std::span<const KindSpec> kindList() {
  return kinds();
}

std::vector<DetectorPtr> allDetectors() {
  std::vector<DetectorPtr> out;
  for (const KindSpec& spec : kindList()) {
    out.push_back(spec.make_detector());
  }
  return out;
}

std::vector<DetectorPtr> enabledDetectors(const config::Detectors& settings) {
  std::vector<DetectorPtr> out;
  for (const KindSpec& spec : kindList()) {
    if (spec.enabled(settings)) {
      out.push_back(spec.make_detector());
    }
  }
  return out;
}

}  // namespace dagadvisor::advice
