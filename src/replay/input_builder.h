#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/result.h"
#include "graph/run_graph.h"
#include "model/cluster.h"
#include "replay/replay_input.h"

namespace dagadvisor::replay {

/// What the model does not say and the replay must assume.
struct InputOptions {
  /// PriorityClass name → value. kube-state-metrics exports the class name only; classes not
  /// listed have priority 0 (the global default), except the two system classes, built in.
  std::map<std::string, std::int64_t> priority_values;
  /// Pods requesting GPUs tolerate `nvidia.com/gpu` taints of every effect, as the
  /// ExtendedResourceToleration admission plugin (enabled on most GPU clusters) makes them.
  bool extended_resource_toleration = true;
  std::int64_t max_pods_per_node = 110;
  /// The node label naming the zone (cluster_labels.zone).
  std::string zone_label = "topology.kubernetes.io/zone";
  /// By task pod: its measured slowdown across zones (ReplayPod::cross_zone_seconds). Tasks not
  /// listed keep their observed run time wherever they land.
  std::unordered_map<model::PodId, double> cross_zone_seconds;
  /// What a hand-off from another node costs, where the cluster's received bytes measured both
  /// prices: a task whose received bytes are known (ClusterSnapshot::networkReceive) is charged
  /// by them instead, each parent by where it runs.
  TransferPrices transfer_prices;
};

/// The replay input of the window ending at cluster.at(): every node; every task pod of `runs`
/// (whose graphs point into `cluster`) with its DAG parents; every other pod as standalone or
/// fixed (PodRole). The window starts at the first creation of a task pod. Pods that cannot be
/// placed in time (no creation time, bound to a node missing from the snapshot) are left out
/// with a note. Fails only when the snapshot holds no node.
Result<ReplayInput> buildReplayInput(const model::ClusterSnapshot& cluster,
                                     const std::vector<graph::RunGraph>& runs,
                                     const InputOptions& options = {});

}  // namespace dagadvisor::replay
