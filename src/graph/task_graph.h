#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/workflow.h"

namespace dagadvisor::graph {

using model::TaskIndex;

/// The DAG of one run in compact arrays (CSR adjacency both ways) with a topological order.
/// Built once per run; every graph algorithm reads it and none copies it.
class TaskGraph {
 public:
  /// Builds from task count and edges. Duplicate edges are kept once; self-loops count as cycles.
  TaskGraph(std::size_t task_count, const std::vector<model::Edge>& edges);

  std::size_t size() const { return child_offsets_.size() - 1; }
  std::size_t edgeCount() const { return children_.size(); }

  /// Children / parents of `t` as [begin, end) pointers into the adjacency arrays.
  struct Range {
    const TaskIndex* first;
    const TaskIndex* last;
    const TaskIndex* begin() const { return first; }
    const TaskIndex* end() const { return last; }
    std::size_t size() const { return static_cast<std::size_t>(last - first); }
  };
  Range children(TaskIndex t) const {
    return {children_.data() + child_offsets_[t], children_.data() + child_offsets_[t + 1]};
  }
  Range parents(TaskIndex t) const {
    return {parents_.data() + parent_offsets_[t], parents_.data() + parent_offsets_[t + 1]};
  }

  /// Topological order (parents before children); empty when the graph has a cycle.
  const std::vector<TaskIndex>& topologicalOrder() const { return order_; }
  bool hasCycle() const { return order_.size() != size(); }

  /// One cycle as a closed walk of task indices (first == last), when hasCycle().
  std::vector<TaskIndex> findCycle() const;

 private:
  std::vector<std::uint32_t> child_offsets_;
  std::vector<TaskIndex> children_;
  std::vector<std::uint32_t> parent_offsets_;
  std::vector<TaskIndex> parents_;
  std::vector<TaskIndex> order_;
};

}  // namespace dagadvisor::graph
