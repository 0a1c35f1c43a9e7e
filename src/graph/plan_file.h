#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "common/result.h"
#include "graph/heft.h"
#include "graph/task_graph.h"
#include "graph/transfer_cost.h"

namespace dagadvisor::graph {

/// The what-if plan as written by a user (docs/whatif.md), already decoded from JSON but not yet
/// checked. The JSON decoding lives with the command (app/whatif_command.cpp), which owns the
/// JSON library; the checks live here so any front end reports the same field paths.
struct PlanTask {
  std::string id;
  std::vector<double> cost;  // one number for every processor, or one per processor, each
                             // 0…1e15; +infinity = cannot run there (null in the JSON)
};

struct PlanEdge {
  std::string from;
  std::string to;
  double transfer = 0;  // 0…1e15: time to move the output across processors (0 on the same one)
};

struct Plan {
  std::vector<std::string> processors;
  std::vector<PlanTask> tasks;
  std::vector<PlanEdge> edges;
};

/// A checked plan in the form HEFT takes: task i is plan.tasks[i], processor p is
/// plan.processors[p]. Keep it alive while a HeftProblem from problem() is in use.
struct CompiledPlan {
  std::vector<std::string> processor_names;
  std::vector<std::string> task_ids;
  TaskGraph graph{0, {}};
  std::vector<double> cost;  // task-major, one per processor (single costs expanded)
  TransferCost transfer;

  HeftProblem problem() const {
    return HeftProblem{&graph, processor_names.size(), cost, transfer, {}, {}};
  }
};

/// Checks a plan and builds its graph. Errors name the JSON path of the first problem, e.g.
/// `tasks[3].cost: expected 3 numbers (one per processor) or 1`, `edges[0].to: unknown task "x"`,
/// `tasks[2].id: duplicate id "a" (also tasks[0])`, `edges: cycle a → b → a`.
Result<CompiledPlan> compilePlan(const Plan& plan);

}  // namespace dagadvisor::graph
