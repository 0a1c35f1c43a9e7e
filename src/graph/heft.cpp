#include "graph/heft.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace dagadvisor::graph {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

Result<void> validate(const HeftProblem& problem) {
  if (problem.graph == nullptr) {
    return makeError("no task graph", "graph");
  }
  const TaskGraph& graph = *problem.graph;
  const std::size_t n = graph.size();
  const std::size_t procs = problem.processors;
  if (procs == 0) {
    return makeError("at least one processor is needed", "processors");
  }
  if (problem.cost.size() != n * procs) {
    return makeError("expected " + std::to_string(n * procs) + " costs (tasks × processors), got " +
                         std::to_string(problem.cost.size()),
                     "cost");
  }
  const bool shared = !problem.demand.empty() || !problem.capacity.empty();
  if (shared && (problem.demand.size() != n || problem.capacity.size() != procs)) {
    return makeError("expected one demand per task and one capacity per processor", "demand");
  }
  for (std::size_t t = 0; t < n; ++t) {
    bool runnable = false;
    for (std::size_t p = 0; p < procs; ++p) {
      const double c = problem.cost[t * procs + p];
      if (std::isnan(c) || c < 0) {
        return makeError("costs must be ≥ 0", "cost[" + std::to_string(t * procs + p) + "]");
      }
      runnable = runnable ||
                 (std::isfinite(c) && (!shared || problem.capacity[p].fits(problem.demand[t])));
    }
    if (!runnable) {
      return makeError("task " + std::to_string(t) + " has no processor it can run on", "cost");
    }
  }
  const TransferCost& transfer = problem.transfer;
  if (transfer.edgeCount() != 0 && transfer.edgeCount() != graph.edgeCount()) {
    return makeError("the transfer model covers " + std::to_string(transfer.edgeCount()) +
                         " edges, the graph has " + std::to_string(graph.edgeCount()),
                     "transfer");
  }
  if (transfer.processors() != 0 && transfer.processors() != procs) {
    return makeError("the transfer model is for " + std::to_string(transfer.processors()) +
                         " processors, the problem has " + std::to_string(procs),
                     "transfer");
  }
  if (graph.hasCycle()) {
    return makeError("the task graph has a cycle", "graph");
  }
  return {};
}

// HEFT's w̄: the mean over the processors a task can run on.
std::vector<double> meanCosts(const HeftProblem& problem) {
  const std::size_t procs = problem.processors;
  std::vector<double> mean(problem.graph->size(), 0.0);
  for (std::size_t t = 0; t < mean.size(); ++t) {
    double sum = 0;
    std::size_t count = 0;
    for (std::size_t p = 0; p < procs; ++p) {
      const double c = problem.cost[t * procs + p];
      if (std::isfinite(c)) {
        sum += c;
        ++count;
      }
    }
    mean[t] = sum / static_cast<double>(count);
  }
  return mean;
}

std::vector<double> upwardRanks(const HeftProblem& problem, const std::vector<double>& mean_cost) {
  const TaskGraph& graph = *problem.graph;
  std::vector<double> rank(graph.size(), 0.0);
  const auto& order = graph.topologicalOrder();
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const TaskIndex t = *it;
    double tail = 0;
    std::size_t edge = firstEdgeOf(graph, t);
    for (TaskIndex c : graph.children(t)) {
      tail = std::max(tail, problem.transfer.mean(edge++, problem.processors) + rank[c]);
    }
    rank[t] = mean_cost[t] + tail;
  }
  return rank;
}

// Rank descending; ranks that differ only by rounding (the paper's example has exact ties such
// as tasks 3 and 4) are snapped to one value so that the topological order decides, which also
// keeps a zero-cost parent ahead of its equally ranked child.
std::vector<TaskIndex> priorityOrder(const TaskGraph& graph, const std::vector<double>& rank) {
  const auto& order = graph.topologicalOrder();
  const double top = rank.empty() ? 0.0 : *std::max_element(rank.begin(), rank.end());
  const double quantum = top > 0 ? top * 1e-12 : 1.0;
  std::vector<double> key(rank.size());
  for (std::size_t t = 0; t < rank.size(); ++t) {
    key[t] = std::round(rank[t] / quantum);
  }
  std::vector<TaskIndex> out(order);
  std::stable_sort(out.begin(), out.end(),
                   [&](TaskIndex a, TaskIndex b) { return key[a] > key[b]; });
  return out;
}

class Placer {
 public:
  explicit Placer(const HeftProblem& problem)
      : problem_(problem),
        shared_(!problem.capacity.empty()),
        busy_(problem.processors),
        running_(shared_ ? problem.processors : 0),
        placement_(problem.graph->size()) {}

  // Puts `t` (whose parents are placed) where it finishes first; returns where that is.
  const ScheduledTask& place(TaskIndex t) {
    gatherParents(t);
    ScheduledTask best{t, 0, kInf, kInf};
    for (std::size_t p = 0; p < problem_.processors; ++p) {
      const ScheduledTask candidate = tryOn(t, p);
      if (candidate.finish < best.finish) {
        best = candidate;
      }
    }
    placement_[t] = best;
    if (shared_ && best.finish > best.start) {
      running_[best.processor].push_back({best.start, best.finish, problem_.demand[t]});
    }
    if (best.finish > best.start) {  // zero-length tasks occupy nothing
      auto& line = busy_[best.processor];
      const Interval slot{best.start, best.finish};
      line.insert(
          std::lower_bound(line.begin(), line.end(), slot,
                           [](const Interval& a, const Interval& b) { return a.start < b.start; }),
          slot);
    }
    return placement_[t];
  }

  std::vector<ScheduledTask> takePlacement() { return std::move(placement_); }
  const std::vector<std::vector<Interval>>& busy() const { return busy_; }

 private:
  struct Incoming {
    double finish;
    std::size_t processor;
    std::size_t edge;
  };

  // Looked up once per task, not once per processor.
  void gatherParents(TaskIndex t) {
    incoming_.clear();
    for (TaskIndex parent : problem_.graph->parents(t)) {
      const ScheduledTask& from = placement_[parent];
      incoming_.push_back({from.finish, from.processor, edgeIndex(*problem_.graph, parent, t)});
    }
  }

  ScheduledTask tryOn(TaskIndex t, std::size_t p) const {
    const double w = problem_.cost[t * problem_.processors + p];
    if (!std::isfinite(w)) {
      return {t, p, kInf, kInf};
    }
    double ready = 0;
    for (const Incoming& in : incoming_) {
      ready = std::max(ready, in.finish + problem_.transfer.cost(in.edge, in.processor, p));
    }
    const double start =
        shared_ ? findCapacitySlot(running_[p], problem_.capacity[p], ready, w, problem_.demand[t])
                : findIdleSlot(busy_[p], ready, w);
    return {t, p, start, start + w};
  }

  const HeftProblem& problem_;
  bool shared_;                                   // processors run several tasks (demand/capacity)
  std::vector<std::vector<Interval>> busy_;       // per processor, sorted by start
  std::vector<std::vector<PlacedTask>> running_;  // per processor when shared_
  std::vector<ScheduledTask> placement_;          // by task
  std::vector<Incoming> incoming_;
};

std::vector<IdleSlot> idleSlots(const std::vector<std::vector<Interval>>& busy, double makespan) {
  std::vector<IdleSlot> out;
  for (std::size_t p = 0; p < busy.size(); ++p) {
    double free_from = 0;
    for (const Interval& slot : busy[p]) {
      if (slot.start > free_from) {
        out.push_back({p, free_from, slot.start});
      }
      free_from = std::max(free_from, slot.finish);
    }
    if (makespan > free_from) {
      out.push_back({p, free_from, makespan});
    }
  }
  return out;
}

void fillCriticalPath(const HeftProblem& problem, HeftSchedule& out) {
  const TaskGraph& graph = *problem.graph;
  TaskIndex at = out.priority.front();  // the highest rank is always an entry task
  out.critical_path_length = out.upward_rank[at];
  out.critical_path.push_back(at);
  while (graph.children(at).size() > 0) {
    std::size_t edge = firstEdgeOf(graph, at);
    TaskIndex next = *graph.children(at).begin();
    double best = -kInf;
    for (TaskIndex c : graph.children(at)) {
      const double via = problem.transfer.mean(edge++, problem.processors) + out.upward_rank[c];
      if (via > best) {
        best = via;
        next = c;
      }
    }
    at = next;
    out.critical_path.push_back(at);
  }
}

}  // namespace

double findIdleSlot(const std::vector<Interval>& busy, double ready, double duration) {
  // Busy intervals never overlap, so their finishes are sorted as well; skip those over by then.
  auto it = std::upper_bound(busy.begin(), busy.end(), ready,
                             [](double time, const Interval& slot) { return time < slot.finish; });
  double start = ready;
  for (; it != busy.end(); ++it) {
    if (start + duration <= it->start) {
      return start;
    }
    start = std::max(start, it->finish);
  }
  return start;
}

namespace {

// Whether `demand` fits next to `placed` throughout [start, start + duration): usage only rises
// where a placed task starts, so checking `start` and those starts suffices.
bool fitsThroughout(const std::vector<PlacedTask>& placed, const model::ResourceVector& capacity,
                    double start, double duration, const model::ResourceVector& demand) {
  const double end = start + duration;
  auto usageAt = [&](double x) {
    model::ResourceVector used = demand;
    for (const PlacedTask& other : placed) {
      if (other.start <= x && x < other.finish) {
        used += other.demand;
      }
    }
    return used;
  };
  if (!capacity.fits(usageAt(start))) {
    return false;
  }
  for (const PlacedTask& other : placed) {
    if (other.start > start && other.start < end && !capacity.fits(usageAt(other.start))) {
      return false;
    }
  }
  return true;
}

}  // namespace

double findCapacitySlot(const std::vector<PlacedTask>& placed,
                        const model::ResourceVector& capacity, double ready, double duration,
                        const model::ResourceVector& demand) {
  if (!capacity.fits(demand)) {
    return kInf;
  }
  // Tasks over by `ready` cannot overlap; the earliest fit is at `ready` or when one of the
  // others ends (resources only free up then).
  std::vector<PlacedTask> overlapping;
  std::vector<double> candidates = {ready};
  for (const PlacedTask& other : placed) {
    if (other.finish > ready) {
      overlapping.push_back(other);
      candidates.push_back(other.finish);
    }
  }
  std::sort(candidates.begin(), candidates.end());
  for (double start : candidates) {
    if (duration <= 0 || fitsThroughout(overlapping, capacity, start, duration, demand)) {
      return start;
    }
  }
  return candidates.back();  // unreachable: after the last finish the processor is empty
}

Result<HeftSchedule> scheduleHeft(const HeftProblem& problem) {
  if (auto ok = validate(problem); !ok) {
    return ok.error();
  }
  const TaskGraph& graph = *problem.graph;
  HeftSchedule out;
  out.upward_rank = upwardRanks(problem, meanCosts(problem));
  out.priority = priorityOrder(graph, out.upward_rank);
  if (graph.size() == 0) {
    return out;
  }
  Placer placer(problem);
  for (TaskIndex t : out.priority) {
    out.makespan = std::max(out.makespan, placer.place(t).finish);
  }
  out.placement = placer.takePlacement();
  out.idle_slots = idleSlots(placer.busy(), out.makespan);
  fillCriticalPath(problem, out);
  return out;
}

}  // namespace dagadvisor::graph
