#include "graph/task_graph.h"

#include <algorithm>

namespace dagadvisor::graph {
namespace {

// Counting-sort edges into CSR form keyed by `key` (parent for children lists, child for parents).
template <typename KeyFn, typename ValueFn>
void buildCsr(std::size_t n, const std::vector<model::Edge>& edges, KeyFn key, ValueFn value,
              std::vector<std::uint32_t>& offsets, std::vector<TaskIndex>& targets) {
  offsets.assign(n + 1, 0);
  for (const auto& e : edges) {
    ++offsets[key(e) + 1];
  }
  for (std::size_t i = 0; i < n; ++i) {
    offsets[i + 1] += offsets[i];
  }
  targets.resize(edges.size());
  std::vector<std::uint32_t> cursor(offsets.begin(), offsets.end() - 1);
  for (const auto& e : edges) {
    targets[cursor[key(e)]++] = value(e);
  }
}

}  // namespace

TaskGraph::TaskGraph(std::size_t task_count, const std::vector<model::Edge>& raw_edges) {
  std::vector<model::Edge> edges;
  edges.reserve(raw_edges.size());
  for (const auto& e : raw_edges) {
    if (e.parent < task_count && e.child < task_count) {
      edges.push_back(e);
    }
  }
  std::sort(edges.begin(), edges.end(), [](const model::Edge& a, const model::Edge& b) {
    return a.parent != b.parent ? a.parent < b.parent : a.child < b.child;
  });
  edges.erase(std::unique(edges.begin(), edges.end(),
                          [](const model::Edge& a, const model::Edge& b) {
                            return a.parent == b.parent && a.child == b.child;
                          }),
              edges.end());
  buildCsr(
      task_count, edges, [](const model::Edge& e) { return e.parent; },
      [](const model::Edge& e) { return e.child; }, child_offsets_, children_);
  buildCsr(
      task_count, edges, [](const model::Edge& e) { return e.child; },
      [](const model::Edge& e) { return e.parent; }, parent_offsets_, parents_);

  // Kahn's algorithm; tasks left over sit on or behind a cycle.
  std::vector<std::uint32_t> waiting(task_count);
  order_.reserve(task_count);
  for (TaskIndex t = 0; t < task_count; ++t) {
    waiting[t] = static_cast<std::uint32_t>(parents(t).size());
    if (waiting[t] == 0) {
      order_.push_back(t);
    }
  }
  for (std::size_t head = 0; head < order_.size(); ++head) {
    for (TaskIndex child : children(order_[head])) {
      if (--waiting[child] == 0) {
        order_.push_back(child);
      }
    }
  }
  if (order_.size() != task_count) {
    order_.clear();
    order_.shrink_to_fit();
  }
}

std::vector<TaskIndex> TaskGraph::findCycle() const {
  if (!hasCycle()) {
    return {};
  }
  // Iterative DFS with colours; the first back edge closes a cycle.
  enum : std::uint8_t { kWhite, kGrey, kBlack };
  std::vector<std::uint8_t> colour(size(), kWhite);
  std::vector<TaskIndex> stack;
  std::vector<std::uint32_t> next_child(size(), 0);
  for (TaskIndex root = 0; root < size(); ++root) {
    if (colour[root] != kWhite) {
      continue;
    }
    stack.assign(1, root);
    colour[root] = kGrey;
    while (!stack.empty()) {
      const TaskIndex t = stack.back();
      const Range kids = children(t);
      if (next_child[t] == kids.size()) {
        colour[t] = kBlack;
        stack.pop_back();
        continue;
      }
      const TaskIndex child = kids.first[next_child[t]++];
      if (colour[child] == kGrey) {
        std::vector<TaskIndex> cycle(std::find(stack.begin(), stack.end(), child), stack.end());
        cycle.push_back(child);
        return cycle;
      }
      if (colour[child] == kWhite) {
        colour[child] = kGrey;
        stack.push_back(child);
      }
    }
  }
  return {};
}

}  // namespace dagadvisor::graph
