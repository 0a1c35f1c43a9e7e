#pragma once

#include <cstddef>
#include <string>
#include <unordered_map>
#include <vector>

#include "analysis/detectors/detector_util.h"
#include "graph/run_graph.h"
#include "model/cluster.h"

namespace dagadvisor::analysis {

/// Zones as small integers, one label lookup per node and cycle: edges then compare numbers.
struct ZoneIndex {
  static constexpr int kNoZone = -1;
  std::vector<int> zone_of_node;  // by NodeId; kNoZone when unlabelled
  std::vector<std::string> names;

  static ZoneIndex of(const model::ClusterSnapshot& cluster, const std::string& zone_label);
};

/// Where a task's pod ran: a node of the snapshot, or only a node name when the node is gone.
struct Where {
  const model::Pod* pod = nullptr;  // nullptr when the task points past the snapshot's pods
  model::NodeId node = model::kNoNode;
  int zone = ZoneIndex::kNoZone;

  bool placed() const { return pod != nullptr && !pod->node_name.empty(); }
};

Where whereRan(const model::ClusterSnapshot& cluster, model::PodId id, const ZoneIndex& zones);

/// How the pods of one parent → child edge were placed relative to each other.
enum class Placement { kUnplaced, kSameNode, kSameZone, kCrossZone, kZoneUnknown };

Placement classify(const Where& parent, const Where& child);

/// What the runs show a zone crossing costs one task of a DAG: its run time (start → finish)
/// in the runs where a parent ran in another zone, against the runs where every parent ran in
/// its zone (same node or same zone). The simulator and real clusters alike charge the fetch of
/// inputs to the child's run time, so a real transfer cost shows up there.
struct MeasuredCrossing {
  std::size_t in_zone_samples = 0;
  std::size_t cross_zone_samples = 0;
  double shift_seconds = 0;  // Hodges-Lehmann: cross-zone minus in-zone run time
  double p_value = 1;        // one-sided Mann-Whitney: cross-zone runs take longer

  /// Enough runs on both sides to measure at all.
  bool measured() const;
  /// Measured, and the cross-zone runs are longer beyond chance (p ≤ kCrossingAlpha): the
  /// seconds a crossing costs this task, else 0.
  double costSeconds() const;
};

/// Samples per side below which a crossing is not measured: three a side is the least for
/// which the exact one-sided rank test can reach p = 0.05 (1 / C(6, 3)).
inline constexpr std::size_t kMinCrossingSamples = 3;
inline constexpr double kCrossingAlpha = 0.05;

/// The crossing measurement of every task of every DAG with finished runs. The keys point into
/// the runs, which must outlive the map.
using CrossingMeasurements = std::unordered_map<TaskKey, MeasuredCrossing, TaskKeyHash>;

CrossingMeasurements measureCrossings(const std::vector<graph::RunGraph>& runs,
                                      const model::ClusterSnapshot& cluster,
                                      const ZoneIndex& zones);

}  // namespace dagadvisor::analysis
