#include "analysis/transfer_measurement.h"

#include <utility>

#include "analysis/rank_statistics.h"

namespace dagadvisor::analysis {
namespace {

struct Samples {
  std::vector<double> in_zone;
  std::vector<double> cross_zone;
};

enum class ParentSide { kNone, kInZone, kCrossZone };

// The child's side: across zones when any placed parent ran in another zone, in its zone when
// every parent did; none when a parent's zone is unknown (it could be either) or none is placed.
ParentSide sideOf(const graph::RunGraph& rg, model::TaskIndex child,
                  const std::vector<Where>& where) {
  ParentSide side = ParentSide::kNone;
  for (model::TaskIndex parent : rg.graph.parents(child)) {
    switch (classify(where[parent], where[child])) {
      case Placement::kCrossZone:
        return ParentSide::kCrossZone;
      case Placement::kSameNode:
      case Placement::kSameZone:
        side = ParentSide::kInZone;
        break;
      case Placement::kZoneUnknown:
        return ParentSide::kNone;
      case Placement::kUnplaced:
        break;
    }
  }
  return side;
}

void sampleRun(const graph::RunGraph& rg, const model::ClusterSnapshot& cluster,
               const ZoneIndex& zones, std::vector<Where>& where,
               std::unordered_map<TaskKey, Samples, TaskKeyHash>& out) {
  const model::WorkflowRun& run = *rg.run;
  where.clear();
  for (const model::Task& task : run.tasks) {
    where.push_back(whereRan(cluster, task.pod, zones));
  }
  for (model::TaskIndex t = 0; t < run.tasks.size(); ++t) {
    if (!where[t].placed() || !graph::taskFinished(*where[t].pod)) {
      continue;
    }
    const ParentSide side = sideOf(rg, t, where);
    if (side == ParentSide::kNone) {
      continue;
    }
    Samples& samples = out[taskKey(run, t)];
    (side == ParentSide::kCrossZone ? samples.cross_zone : samples.in_zone)
        .push_back(rg.run_seconds[t]);
  }
}

}  // namespace

ZoneIndex ZoneIndex::of(const model::ClusterSnapshot& cluster, const std::string& zone_label) {
  ZoneIndex index;
  std::unordered_map<std::string, int> ids;
  index.zone_of_node.reserve(cluster.nodes().size());
  for (const model::Node& node : cluster.nodes()) {
    const auto zone = node.labels.get(zone_label);
    if (!zone || zone->empty()) {
      index.zone_of_node.push_back(kNoZone);
      continue;
    }
    const auto [it, added] = ids.try_emplace(std::string(*zone), static_cast<int>(ids.size()));
    if (added) {
      index.names.push_back(it->first);
    }
    index.zone_of_node.push_back(it->second);
  }
  return index;
}

Where whereRan(const model::ClusterSnapshot& cluster, model::PodId id, const ZoneIndex& zones) {
  Where where;
  if (id >= cluster.pods().size()) {
    return where;
  }
  where.pod = &cluster.pod(id);
  where.node = where.pod->node;
  if (where.node != model::kNoNode && where.node < zones.zone_of_node.size()) {
    where.zone = zones.zone_of_node[where.node];
  }
  return where;
}

Placement classify(const Where& a, const Where& b) {
  if (!a.placed() || !b.placed()) {
    return Placement::kUnplaced;
  }
  // Node ids when both nodes are known; a node gone from the snapshot only has its name.
  const bool same_node = a.node != model::kNoNode && b.node != model::kNoNode
                             ? a.node == b.node
                             : a.pod->node_name == b.pod->node_name;
  if (same_node) {
    return Placement::kSameNode;
  }
  if (a.zone == ZoneIndex::kNoZone || b.zone == ZoneIndex::kNoZone) {
    return Placement::kZoneUnknown;
  }
  return a.zone == b.zone ? Placement::kSameZone : Placement::kCrossZone;
}

bool MeasuredCrossing::measured() const {
  return in_zone_samples >= kMinCrossingSamples && cross_zone_samples >= kMinCrossingSamples;
}

double MeasuredCrossing::costSeconds() const {
  return measured() && p_value <= kCrossingAlpha && shift_seconds > 0 ? shift_seconds : 0.0;
}

CrossingMeasurements measureCrossings(const std::vector<graph::RunGraph>& runs,
                                      const model::ClusterSnapshot& cluster,
                                      const ZoneIndex& zones) {
  std::unordered_map<TaskKey, Samples, TaskKeyHash> samples;
  std::vector<Where> where;
  for (const graph::RunGraph& rg : runs) {
    if (rg.run != nullptr && rg.graph.size() == rg.run->tasks.size() &&
        rg.run_seconds.size() == rg.run->tasks.size()) {
      sampleRun(rg, cluster, zones, where, samples);
    }
  }
  CrossingMeasurements out;
  for (const auto& [key, s] : samples) {
    MeasuredCrossing m;
    m.in_zone_samples = s.in_zone.size();
    m.cross_zone_samples = s.cross_zone.size();
    if (m.measured()) {
      m.shift_seconds = hodgesLehmannShift(s.cross_zone, s.in_zone);
      m.p_value = mannWhitneyU(s.cross_zone, s.in_zone).p_greater;
    }
    out.emplace(key, m);
  }
  return out;
}

}  // namespace dagadvisor::analysis
