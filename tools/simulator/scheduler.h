// An emulation of the default kube-scheduler: greedy, one pod at a time, DAG-blind.
// Filter (resources, taints, required node affinity), score (least-allocated + balanced
// allocation, plus preferred parent affinity under the remedies), pick the best with a random
// tie-break, and look at only part of a large cluster (percentageOfNodesToScore).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "simulation.h"

namespace dagadvisor::sim {

/// The Filter phase: node affinity, taints and requests against what is in use on the node.
bool podFits(const Pod& pod, const Node& node);

/// True when the node's taints and node-type let the pod in, whatever its resources.
bool podAdmits(const Pod& pod, const Node& node);

class Scheduler {
 public:
  Scheduler(std::vector<Node>& nodes, bool parentAffinity, std::uint64_t seed);

  /// Node index chosen for the pod, or -1 when no node fits. `parentNodes` are the nodes of
  /// the pod's parents (used only when the parent-affinity remedy is on).
  int place(const Pod& pod, const std::vector<int>& parentNodes);

  /// True when the pod fits on the node now.
  bool fits(const Pod& pod, const Node& node) const { return podFits(pod, node); }

  /// The filter plugin kube-scheduler would report for a pod that fits nowhere:
  /// NodeAffinity, TaintToleration or NodeResourcesFit.
  std::string rejectingPlugin(const Pod& pod) const;

  /// Reserves the pod's requests (and GPU devices) on the node.
  void bind(Pod& pod, int node);

  /// Frees what `bind` reserved.
  void release(Pod& pod);

 private:
  double score(const Pod& pod, const Node& node, const std::vector<int>& parentNodes) const;
  std::size_t nodesToFind() const;

  std::vector<Node>& nodes_;
  bool parentAffinity_;
  std::uint64_t seed_;
  std::size_t nextStart_ = 0;
  std::uint64_t decisions_ = 0;
};

}  // namespace dagadvisor::sim
