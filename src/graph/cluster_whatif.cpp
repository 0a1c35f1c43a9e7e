#include "graph/cluster_whatif.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace dagadvisor::graph {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

double speedOf(const std::vector<double>& node_speed, model::NodeId node) {
  return node < node_speed.size() && node_speed[node] > 0 ? node_speed[node] : 1.0;
}

bool hasNode(const model::ClusterSnapshot& cluster, const model::Pod& pod) {
  return pod.node != model::kNoNode && pod.node < cluster.nodes().size();
}

// The nodes the run's tasks ran on, plus, for a task without a node that fits none of them, the
// first schedulable node of the cluster that fits it: a pending GPU task needs a GPU node even
// when no other task of the run had one.
Result<std::vector<model::NodeId>> whatIfNodes(const RunGraph& run,
                                               const model::ClusterSnapshot& cluster) {
  std::vector<model::NodeId> nodes;
  for (const model::Task& task : run.run->tasks) {
    if (const model::Pod& pod = cluster.pod(task.pod); hasNode(cluster, pod)) {
      nodes.push_back(pod.node);
    }
  }
  auto fitsOn = [&](const model::ResourceVector& requests, model::NodeId node) {
    return !cluster.node(node).unschedulable && cluster.node(node).allocatable.fits(requests);
  };
  for (const model::Task& task : run.run->tasks) {
    const model::Pod& pod = cluster.pod(task.pod);
    if (hasNode(cluster, pod) || std::any_of(nodes.begin(), nodes.end(), [&](model::NodeId n) {
          return fitsOn(pod.requests, n);
        })) {
      continue;
    }
    model::NodeId found = 0;
    while (found < cluster.nodes().size() && !fitsOn(pod.requests, found)) {
      ++found;
    }
    if (found == cluster.nodes().size()) {
      return makeError("task " + task.id + " fits no node of the cluster", "tasks");
    }
    nodes.push_back(found);
  }
  std::sort(nodes.begin(), nodes.end());
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  return nodes;
}

// What each task is charged in the what-if; counts the unfinished tasks with and without an
// estimate into `out`.
std::vector<double> taskSeconds(const RunGraph& run, const model::ClusterSnapshot& cluster,
                                const RunTimeEstimates* estimates, ClusterWhatIf& out) {
  std::vector<double> seconds(run.run_seconds);
  for (TaskIndex t = 0; t < seconds.size(); ++t) {
    if (taskFinished(cluster.pod(run.run->tasks[t].pod))) {
      continue;
    }
    // A running task has run at least this long; a pending one shows 0.
    const auto estimate =
        estimates != nullptr ? estimates->estimate(run, t, cluster) : std::nullopt;
    if (estimate) {
      seconds[t] = std::max(seconds[t], *estimate);
      ++out.estimated_tasks;
    } else {
      ++out.unestimated_tasks;
    }
  }
  out.basis = out.unestimated_tasks > 0 ? WhatIfBasis::kLowerBound
              : out.estimated_tasks > 0 ? WhatIfBasis::kEstimated
                                        : WhatIfBasis::kObserved;
  return seconds;
}

// The transfer model between the what-if's processors (one per node, in `nodes` order).
TransferCost transferBetween(const TaskGraph& graph, const std::vector<model::NodeId>& nodes,
                             const model::ClusterSnapshot& cluster,
                             const WhatIfTransfer& transfer) {
  if (graph.edgeCount() == 0 ||
      (transfer.same_zone_seconds <= 0 && transfer.cross_zone_seconds <= 0)) {
    return {};
  }
  const std::size_t n = nodes.size();
  std::vector<std::optional<std::string_view>> zone(n);
  for (std::size_t p = 0; p < n; ++p) {
    zone[p] = cluster.node(nodes[p]).labels.get(transfer.zone_label);
  }
  std::vector<double> factor(n * n, transfer.same_zone_seconds);
  for (std::size_t a = 0; a < n; ++a) {
    for (std::size_t b = 0; b < n; ++b) {
      if (zone[a] && zone[b] && !zone[a]->empty() && !zone[b]->empty() && *zone[a] != *zone[b]) {
        factor[a * n + b] = transfer.cross_zone_seconds;
      }
    }
  }
  // Every edge weighs 1: the factor is the whole cost of a hop of that kind.
  return TransferCost::between(std::vector<double>(graph.edgeCount(), 1.0), n, std::move(factor),
                               {});
}

}  // namespace

WhatIfTransfer WhatIfTransfer::fromConfig(const config::Config& config) {
  return {static_cast<double>(config.analysis.transfer.same_zone.count()),
          static_cast<double>(config.analysis.transfer.cross_zone.count()),
          config.cluster_labels.zone};
}

Result<ClusterWhatIf> runClusterWhatIf(const RunGraph& run, const model::ClusterSnapshot& cluster,
                                       const WhatIfOptions& options) {
  if (run.run == nullptr || run.graph.hasCycle()) {
    return makeError("only runs without cycles can be re-scheduled", "run");
  }
  auto nodes = whatIfNodes(run, cluster);
  if (!nodes.ok()) {
    return nodes.error();
  }
  ClusterWhatIf out;
  out.nodes = std::move(*nodes);
  const std::vector<double> seconds = taskSeconds(run, cluster, options.estimates, out);
  const std::size_t n = run.graph.size();
  const std::size_t procs = out.nodes.size();
  HeftProblem problem;
  problem.graph = &run.graph;
  problem.processors = procs;
  problem.cost.assign(n * procs, kInf);
  problem.transfer = transferBetween(run.graph, out.nodes, cluster, options.transfer);
  std::vector<double> fastest(n, kInf);
  for (std::size_t p = 0; p < procs; ++p) {
    problem.capacity.push_back(cluster.node(out.nodes[p]).allocatable);
  }
  for (std::size_t t = 0; t < n; ++t) {
    const model::Pod& pod = cluster.pod(run.run->tasks[t].pod);
    problem.demand.push_back(pod.requests);
    const double work = seconds[t] * speedOf(options.node_speed, pod.node);
    for (std::size_t p = 0; p < procs; ++p) {
      if (problem.capacity[p].fits(pod.requests)) {
        problem.cost[t * procs + p] = work / speedOf(options.node_speed, out.nodes[p]);
        fastest[t] = std::min(fastest[t], problem.cost[t * procs + p]);
      }
    }
  }
  auto schedule = scheduleHeft(problem);
  if (!schedule.ok()) {
    return schedule.error();
  }
  out.schedule = std::move(*schedule);
  out.makespan = out.schedule.makespan;
  out.lower_bound = computeCriticalPath(run.graph, fastest).length;
  return out;
}

std::vector<double> estimateNodeSpeeds(const std::vector<RunGraph>& runs,
                                       const model::ClusterSnapshot& cluster) {
  struct Seen {
    model::NodeId node;
    double seconds;
  };
  std::map<std::string, std::vector<Seen>> by_task;
  for (const RunGraph& run : runs) {
    for (std::size_t t = 0; run.run != nullptr && t < run.run->tasks.size(); ++t) {
      const model::Pod& pod = cluster.pod(run.run->tasks[t].pod);
      if (pod.node != model::kNoNode && run.run_seconds[t] > 0) {
        by_task[run.run->dag + "\n" + run.run->tasks[t].id].push_back(
            {pod.node, run.run_seconds[t]});
      }
    }
  }
  std::vector<double> log_sum(cluster.nodes().size(), 0.0);
  std::vector<double> count(cluster.nodes().size(), 0.0);
  for (const auto& [key, seen] : by_task) {
    const auto first_node = seen[0].node;  // clang 14 cannot capture the structured binding
    const bool several_nodes =
        std::any_of(seen.begin(), seen.end(), [&](const Seen& s) { return s.node != first_node; });
    if (!several_nodes) {
      continue;  // no comparison possible
    }
    double mean = 0;
    for (const Seen& s : seen) {
      mean += s.seconds / static_cast<double>(seen.size());
    }
    for (const Seen& s : seen) {
      log_sum[s.node] += std::log(mean / s.seconds);
      count[s.node] += 1;
    }
  }
  std::vector<double> speed(cluster.nodes().size(), 1.0);
  for (std::size_t node = 0; node < speed.size(); ++node) {
    if (count[node] > 0) {
      speed[node] = std::exp(log_sum[node] / count[node]);
    }
  }
  return speed;
}

}  // namespace dagadvisor::graph
