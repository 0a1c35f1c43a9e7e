// An emulation of the default kube-scheduler profile: greedy, one pod at a time, DAG-blind.
// Filter: NodeName (DaemonSet pods), TaintToleration (NoSchedule, NoExecute), NodeAffinity
// (nodeSelector and required terms), NodeResourcesFit, InterPodAffinity (required affinity and
// anti-affinity, both directions, against the pods in the scheduler's cache: bound and not
// terminated; finished pods are invisible to it). Score with the default weights:
// NodeResourcesFit LeastAllocated 1, BalancedAllocation 1, TaintToleration 3 (PreferNoSchedule),
// NodeAffinity 2 (preferred terms), InterPodAffinity 2 (preferred terms of the incoming pod).
// Pick the best with a random tie-break, looking at only part of a large cluster
// (percentageOfNodesToScore). PostFilter: DefaultPreemption.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "simulation.h"

namespace dagadvisor::sim {

/// NodeName, TaintToleration and NodeAffinity: true when the node lets the pod in, whatever
/// its resources and the pods on it.
bool podAdmits(const Pod& pod, const Node& node);

/// podAdmits and NodeResourcesFit against what is in use on the node.
bool podFits(const Pod& pod, const Node& node);

/// Pods to evict for a preemptor, and the node it then fits on.
struct Preemption {
  int node = -1;  // -1: preemption cannot help
  std::vector<int> victims;
};

class Scheduler {
 public:
  /// `pods` is the simulation's pod list (bound pods are looked up in it by id).
  Scheduler(std::vector<Node>& nodes, const std::vector<Pod>& pods, std::uint64_t seed);

  /// Node index chosen for the pod, or -1 when no node passes the filters.
  int place(const Pod& pod);

  /// The filter plugin kube-scheduler would report for a pod that fits nowhere:
  /// TaintToleration, NodeAffinity, InterPodAffinity or NodeResourcesFit.
  std::string rejectingPlugin(const Pod& pod) const;

  /// DefaultPreemption for a pod that fits nowhere: only when its PriorityClass says
  /// PreemptLowerPriority, only pods of lower priority, the fewest and least important
  /// (all lower-priority pods removed, then as many reprieved as still let it fit, highest
  /// priority first); the node whose victims have the lowest highest priority, then the
  /// lowest sum of priorities, then the fewest.
  Preemption preemption(const Pod& pod) const;

  /// Reserves the pod's requests (and GPU devices) on the node; the pod enters the cache.
  void bind(Pod& pod, int node);

  /// Frees what `bind` reserved; the pod leaves the cache (it finished or was evicted).
  void release(Pod& pod);

 private:
  struct Affinity;
  Affinity affinityFor(const Pod& pod) const;
  double score(const Pod& pod, const Node& node) const;
  std::size_t nodesToFind() const;

  std::vector<Node>& nodes_;
  const std::vector<Pod>& pods_;
  std::vector<std::vector<int>> cached_;  // per node: ids of the pods bound there
  int withAntiAffinity_ = 0;              // cached pods with required anti-affinity
  std::multiset<int> cachedPriorities_;   // so preemption knows at once when no pod is lower
  std::uint64_t seed_;
  std::size_t nextStart_ = 0;
  std::uint64_t decisions_ = 0;
};

}  // namespace dagadvisor::sim
