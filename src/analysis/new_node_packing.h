#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/node_eligibility.h"
#include "model/cluster.h"

namespace dagadvisor::analysis {

/// One shape of the cluster's nodes, a node group as the cluster autoscaler sees it: the
/// usable nodes with the same allocatable, the same value of the pool label and the same
/// NodeEligibility group (hard taints and selected label values), so that a pod either may
/// land on every node of the shape or on none.
struct NodeShape {
  model::ResourceVector allocatable;
  /// What a new node of the shape offers pods: allocatable minus the DaemonSet requests it would
  /// carry (per resource, the most seen on a node of the shape), as the autoscaler's node
  /// template counts them.
  model::ResourceVector capacity;
  std::optional<std::string> pool;
  model::NodeId example = 0;  // a node of the shape: its eligibility is the shape's
};

/// The cluster's node shapes, smallest first (GPUs, then CPU, then memory).
std::vector<NodeShape> nodeShapes(const model::ClusterSnapshot& cluster,
                                  const NodeEligibility& eligibility,
                                  const std::string& pool_label);

/// New nodes of one shape and what the pods packed into them request.
struct NewNodesOfShape {
  std::int64_t count = 0;
  model::ResourceVector packed;
};

/// Where `pods` would go on new nodes.
struct NewNodePlan {
  std::vector<NewNodesOfShape> by_shape;  // per shape, as nodeShapes() returned them
  std::int64_t nodes = 0;                 // Σ count
  /// Per resource, the most capacity of a shape some of the pods may land on and fit (the
  /// GPU-free preference aside): no new node the pods could use offers more.
  model::ResourceVector largest_capacity;
  std::vector<model::PodId> unplaceable;  // fit no shape they may land on, in `pods` order
};

/// Sizes new nodes for `pods` the way the cluster autoscaler scales up: each round, for every
/// shape, first-fit decreasing (model::largerFirst) of the pods that may land on it onto new empty
/// nodes of its capacity (the binpacking estimator), and the shape that places the most pods
/// per new node is scaled (an expander that minimises the nodes added; ties: more pods, then
/// the smaller shape); its pods are then taken out and the next round sizes the rest. A pod may
/// land on a shape when its taints and labels allow (NodeEligibility) and the capacity holds it;
/// a pod without GPUs keeps off GPU shapes whenever a GPU-free shape it may land on holds it.
/// Every round scales a shape that then has no pod left, so there are at most as many rounds as
/// shapes.
NewNodePlan packOntoNewNodes(const model::ClusterSnapshot& cluster,
                             const NodeEligibility& eligibility,
                             const std::vector<NodeShape>& shapes,
                             const std::vector<model::PodId>& pods);

}  // namespace dagadvisor::analysis
