#include "graph/plan_file.h"

#include <cmath>
#include <limits>
#include <map>
#include <utility>

namespace dagadvisor::graph {
namespace {

std::string at(const std::string& list, std::size_t i) {
  return list + "[" + std::to_string(i) + "]";
}

std::string quoted(const std::string& s) {
  return "\"" + s + "\"";
}

// Larger values would let sums overflow to infinity; no real plan needs them.
constexpr double kMaxValue = 1e15;

// False for NaN too.
bool validNumber(double v) {
  return v >= 0 && v <= kMaxValue;
}

// Names must be non-empty and unique; returns name → position.
Result<std::map<std::string, std::size_t>> indexNames(const std::vector<std::string>& names,
                                                      const std::string& list,
                                                      const std::string& key) {
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string field = at(list, i) + "." + key;
    if (names[i].empty()) {
      return makeError("must not be empty", field);
    }
    const auto [it, fresh] = index.emplace(names[i], i);
    if (!fresh) {
      return makeError(
          "duplicate " + key + " " + quoted(names[i]) + " (also " + at(list, it->second) + ")",
          field);
    }
  }
  return index;
}

Result<void> appendCosts(const PlanTask& task, std::size_t i, std::size_t processors,
                         std::vector<double>& cost) {
  const std::string field = at("tasks", i) + ".cost";
  if (task.cost.size() != 1 && task.cost.size() != processors) {
    const std::string expected =
        processors == 1 ? "1 number"
                        : std::to_string(processors) + " numbers (one per processor) or 1";
    return makeError("expected " + expected + ", got " + std::to_string(task.cost.size()), field);
  }
  bool runnable = false;
  for (std::size_t k = 0; k < task.cost.size(); ++k) {
    const bool cannot_run = task.cost[k] == std::numeric_limits<double>::infinity();
    if (!validNumber(task.cost[k]) && !cannot_run) {
      return makeError("must be a number from 0 to 1e15", at(field, k));
    }
    runnable = runnable || std::isfinite(task.cost[k]);
  }
  if (!runnable) {
    return makeError("the task can run on no processor (every cost is null)", field);
  }
  for (std::size_t p = 0; p < processors; ++p) {
    cost.push_back(task.cost.size() == 1 ? task.cost[0] : task.cost[p]);
  }
  return {};
}

Result<std::vector<model::Edge>> resolveEdges(const Plan& plan,
                                              const std::map<std::string, std::size_t>& tasks) {
  std::vector<model::Edge> edges;
  std::map<std::pair<std::size_t, std::size_t>, std::size_t> seen;
  for (std::size_t i = 0; i < plan.edges.size(); ++i) {
    const PlanEdge& e = plan.edges[i];
    const auto from = tasks.find(e.from);
    if (from == tasks.end()) {
      return makeError("unknown task " + quoted(e.from), at("edges", i) + ".from");
    }
    const auto to = tasks.find(e.to);
    if (to == tasks.end()) {
      return makeError("unknown task " + quoted(e.to), at("edges", i) + ".to");
    }
    if (from->second == to->second) {
      return makeError("a task cannot depend on itself (" + quoted(e.from) + ")", at("edges", i));
    }
    if (!validNumber(e.transfer)) {
      return makeError("must be a number from 0 to 1e15", at("edges", i) + ".transfer");
    }
    const auto [it, fresh] = seen.emplace(std::make_pair(from->second, to->second), i);
    if (!fresh) {
      return makeError(
          "duplicate edge " + e.from + " → " + e.to + " (also " + at("edges", it->second) + ")",
          at("edges", i));
    }
    edges.push_back({static_cast<TaskIndex>(from->second), static_cast<TaskIndex>(to->second)});
  }
  return edges;
}

std::string describeCycle(const TaskGraph& graph, const std::vector<std::string>& ids) {
  std::string out;
  for (TaskIndex t : graph.findCycle()) {
    out += (out.empty() ? "" : " → ") + ids[t];
  }
  return out;
}

}  // namespace

Result<CompiledPlan> compilePlan(const Plan& plan) {
  if (plan.processors.empty()) {
    return makeError("at least one processor is needed", "processors");
  }
  if (plan.tasks.empty()) {
    return makeError("at least one task is needed", "tasks");
  }
  auto processors = indexNames(plan.processors, "processors", "name");
  if (!processors) {
    return processors.error();
  }
  CompiledPlan out;
  out.processor_names = plan.processors;
  for (const PlanTask& task : plan.tasks) {
    out.task_ids.push_back(task.id);
  }
  auto tasks = indexNames(out.task_ids, "tasks", "id");
  if (!tasks) {
    return tasks.error();
  }
  for (std::size_t i = 0; i < plan.tasks.size(); ++i) {
    if (auto ok = appendCosts(plan.tasks[i], i, plan.processors.size(), out.cost); !ok) {
      return ok.error();
    }
  }
  auto edges = resolveEdges(plan, *tasks);
  if (!edges) {
    return edges.error();
  }
  out.graph = TaskGraph(plan.tasks.size(), *edges);
  if (out.graph.hasCycle()) {
    return makeError("cycle " + describeCycle(out.graph, out.task_ids), "edges");
  }
  std::vector<double> weight(out.graph.edgeCount(), 0.0);
  for (std::size_t i = 0; i < edges->size(); ++i) {
    weight[edgeIndex(out.graph, (*edges)[i].parent, (*edges)[i].child)] = plan.edges[i].transfer;
  }
  out.transfer = TransferCost::uniform(std::move(weight));
  return out;
}

}  // namespace dagadvisor::graph
