#include "graph/transfer_cost.h"

#include <algorithm>

namespace dagadvisor::graph {
namespace {

double offDiagonalMean(const std::vector<double>& matrix, std::size_t n, double when_empty) {
  if (matrix.empty() || n < 2) {
    return when_empty;
  }
  double sum = 0;
  for (std::size_t a = 0; a < n; ++a) {
    for (std::size_t b = 0; b < n; ++b) {
      sum += a == b ? 0.0 : matrix[a * n + b];
    }
  }
  return sum / static_cast<double>(n * (n - 1));
}

}  // namespace

std::size_t firstEdgeOf(const TaskGraph& graph, TaskIndex task) {
  // The child lists of all tasks are one contiguous array, so the offset is a pointer difference.
  return static_cast<std::size_t>(graph.children(task).first - graph.children(0).first);
}

std::size_t edgeIndex(const TaskGraph& graph, TaskIndex parent, TaskIndex child) {
  if (parent >= graph.size()) {
    return kNoEdge;
  }
  const auto kids = graph.children(parent);
  const TaskIndex* it = std::lower_bound(kids.begin(), kids.end(), child);
  if (it == kids.end() || *it != child) {
    return kNoEdge;
  }
  return firstEdgeOf(graph, parent) + static_cast<std::size_t>(it - kids.begin());
}

TransferCost TransferCost::uniform(std::vector<double> weight) {
  TransferCost out;
  out.weight_ = std::move(weight);
  return out;
}

TransferCost TransferCost::between(std::vector<double> weight, std::size_t processors,
                                   std::vector<double> factor, std::vector<double> latency) {
  TransferCost out;
  out.weight_ = std::move(weight);
  out.processors_ = processors;
  out.factor_ = std::move(factor);
  out.latency_ = std::move(latency);
  out.mean_factor_ = offDiagonalMean(out.factor_, processors, 1.0);
  out.mean_latency_ = offDiagonalMean(out.latency_, processors, 0.0);
  return out;
}

TransferCost TransferCost::zoned(std::vector<double> weight,
                                 const std::vector<std::string>& zone_of, double same_zone,
                                 double cross_zone) {
  const std::size_t n = zone_of.size();
  std::vector<double> factor(n * n, 0.0);
  for (std::size_t a = 0; a < n; ++a) {
    for (std::size_t b = 0; b < n; ++b) {
      factor[a * n + b] = zone_of[a] == zone_of[b] ? same_zone : cross_zone;
    }
  }
  return between(std::move(weight), n, std::move(factor), {});
}

double TransferCost::mean(std::size_t edge, std::size_t processors) const {
  if (processors < 2 || weight_.empty()) {
    return 0;
  }
  return mean_latency_ + weight_[edge] * mean_factor_;
}

}  // namespace dagadvisor::graph
