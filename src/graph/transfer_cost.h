#pragma once

#include <cstddef>
#include <limits>
#include <string>
#include <vector>

#include "graph/task_graph.h"

namespace dagadvisor::graph {

/// Edge numbering shared by every per-edge array of a TaskGraph: edge k is the k-th child entry
/// when walking `graph.children(0)`, `graph.children(1)`, … in order, i.e. the graph's unique
/// edges sorted by (parent, child).
inline constexpr std::size_t kNoEdge = std::numeric_limits<std::size_t>::max();

/// Index of the first edge leaving `task` in the numbering above (the one for children(task)[0]).
std::size_t firstEdgeOf(const TaskGraph& graph, TaskIndex task);

/// Index of edge parent → child, or kNoEdge when the graph has no such edge. O(log out-degree).
std::size_t edgeIndex(const TaskGraph& graph, TaskIndex parent, TaskIndex child);

/// How long the output of a parent task takes to reach a child task placed on another processor.
/// cost(e, a, b) = 0 when a == b, else latency(a, b) + weight(e) × factor(a, b). The HEFT paper's
/// model is this one with latency = startup cost and factor = 1 / bandwidth; a plan file is the
/// uniform case (latency 0, factor 1: the edge weight is the transfer time). Cheap to copy
/// around only when uniform; pass it by reference.
class TransferCost {
 public:
  /// No transfer cost at all (shared memory, or the STG benchmark's model).
  TransferCost() = default;

  /// Every cross-processor transfer of edge e costs weight[e] (edge numbering above).
  static TransferCost uniform(std::vector<double> weight);

  /// weight[e] scaled by factor[a * processors + b], plus latency[a * processors + b]
  /// (row-major processors × processors; the diagonals are ignored). An empty matrix means
  /// factor 1 / latency 0 everywhere.
  static TransferCost between(std::vector<double> weight, std::size_t processors,
                              std::vector<double> factor, std::vector<double> latency);

  /// The node/zone model: processors in the same zone pay weight × same_zone, others
  /// weight × cross_zone. `zone_of[p]` names processor p's zone.
  static TransferCost zoned(std::vector<double> weight, const std::vector<std::string>& zone_of,
                            double same_zone, double cross_zone);

  /// Transfer time of edge e from processor a to processor b.
  double cost(std::size_t edge, std::size_t from, std::size_t to) const {
    if (from == to || weight_.empty()) {
      return 0;
    }
    const std::size_t pair = from * processors_ + to;
    return (latency_.empty() ? 0.0 : latency_[pair]) +
           weight_[edge] * (factor_.empty() ? 1.0 : factor_[pair]);
  }

  /// Mean of cost(e, a, b) over the ordered pairs a ≠ b of `processors` processors (HEFT's c̄);
  /// 0 with a single processor, which never transfers.
  double mean(std::size_t edge, std::size_t processors) const;

  /// Number of edges this model knows (0 for the no-cost model, which answers 0 for any edge).
  std::size_t edgeCount() const { return weight_.size(); }
  /// Processor count the matrices were built for (0 when there are none).
  std::size_t processors() const { return processors_; }

 private:
  std::vector<double> weight_;
  std::size_t processors_ = 0;
  std::vector<double> factor_;
  std::vector<double> latency_;
  double mean_factor_ = 1;   // over pairs a ≠ b
  double mean_latency_ = 0;  // over pairs a ≠ b
};

}  // namespace dagadvisor::graph
