#include "graph/cluster_whatif.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string>

namespace dagadvisor::graph {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

double speedOf(const std::vector<double>& node_speed, model::NodeId node) {
  return node < node_speed.size() && node_speed[node] > 0 ? node_speed[node] : 1.0;
}

Result<std::vector<model::NodeId>> usedNodes(const RunGraph& run,
                                             const model::ClusterSnapshot& cluster) {
  std::vector<model::NodeId> nodes;
  for (const model::Task& task : run.run->tasks) {
    const model::NodeId node = cluster.pod(task.pod).node;
    if (node == model::kNoNode) {
      return makeError("task " + task.id + " has no node in the snapshot", "tasks");
    }
    nodes.push_back(node);
  }
  std::sort(nodes.begin(), nodes.end());
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  return nodes;
}

}  // namespace

Result<ClusterWhatIf> runClusterWhatIf(const RunGraph& run, const model::ClusterSnapshot& cluster,
                                       const std::vector<double>& node_speed) {
  if (run.run == nullptr || !run.finished || run.graph.hasCycle()) {
    return makeError("only finished runs without cycles can be re-scheduled", "run");
  }
  auto nodes = usedNodes(run, cluster);
  if (!nodes.ok()) {
    return nodes.error();
  }
  ClusterWhatIf out;
  out.nodes = std::move(*nodes);
  const std::size_t n = run.graph.size();
  const std::size_t procs = out.nodes.size();
  HeftProblem problem;
  problem.graph = &run.graph;
  problem.processors = procs;
  problem.cost.assign(n * procs, kInf);
  std::vector<double> fastest(n, kInf);
  for (std::size_t p = 0; p < procs; ++p) {
    problem.capacity.push_back(cluster.node(out.nodes[p]).allocatable);
  }
  for (std::size_t t = 0; t < n; ++t) {
    const model::Pod& pod = cluster.pod(run.run->tasks[t].pod);
    problem.demand.push_back(pod.requests);
    const double work = run.run_seconds[t] * speedOf(node_speed, pod.node);
    for (std::size_t p = 0; p < procs; ++p) {
      if (problem.capacity[p].fits(pod.requests)) {
        problem.cost[t * procs + p] = work / speedOf(node_speed, out.nodes[p]);
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
    const bool several_nodes = std::any_of(seen.begin(), seen.end(),
                                           [&](const Seen& s) { return s.node != seen[0].node; });
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
