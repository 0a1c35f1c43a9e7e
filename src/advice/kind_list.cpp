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

template <typename D, Adviser kAdvise>
KindSpec kind() {
  using Settings = typename D::Settings;
  return {D().info().kind, []() -> analysis::DetectorPtr { return std::make_unique<D>(); },
          [](config::DetectorSettings& all) { all.get<Settings>(); },
          [](const config::DetectorSettings& all) { return all.get<Settings>().enabled; }, kAdvise};
}

using namespace analysis;

// The order is the ranking's, first the kinds that free GPUs, then those that shorten runs.
const std::vector<KindSpec>& kinds() {
  static const std::vector<KindSpec> kKinds = {
      kind<GpuNodeHoarding, &adviseGpuNodeHoarding>(),
      kind<SplitDependencies, &adviseSplitDependencies>(),
      kind<DagStacking, &adviseDagStacking>(),
      kind<StrandedResources, &adviseStrandedResources>(),
      kind<CapacityShortfall, &adviseCapacityShortfall>(),
      kind<CriticalPathPriority, &adviseCriticalPathPriority>(),
      kind<IdleSlots, &adviseIdleSlots>(),
      kind<ShardCandidate, &adviseShardCandidate>(),
      kind<SchedulingLatency, &adviseSchedulingLatency>(),
      kind<BatchOnlineColocation, &adviseBatchOnlineColocation>(),
      kind<PoolMismatch, &advisePoolMismatch>(),
      kind<OverRequest, &adviseOverRequest>(),
      kind<CohortComparison, &adviseCohortComparison>(),
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

std::vector<DetectorPtr> enabledDetectors(const config::DetectorSettings& settings) {
  std::vector<DetectorPtr> out;
  for (const KindSpec& spec : kindList()) {
    if (spec.enabled(settings)) {
      out.push_back(spec.make_detector());
    }
  }
  return out;
}

config::Config defaultConfig() {
  config::Config config;
  for (const KindSpec& spec : kindList()) {
    spec.add_settings(config.detectors);
  }
  return config;
}

}  // namespace dagadvisor::advice
