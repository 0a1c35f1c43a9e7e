// The daemon's model of a simulated scenario, for the replay's tests: nodes with labels and
// taints, every pod with its times, requests and owner (pod ids equal the simulator's), each run
// with its true DAG. Only what a real cluster would show crosses over.
#pragma once

#include <catch2/catch.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "graph/cluster_whatif.h"
#include "graph/run_graph.h"
#include "model/cluster.h"
#include "model/workflow.h"
#include "replay/input_builder.h"
#include "sim_test_support.h"

namespace dagadvisor::sim::test {
namespace replay_window {

namespace model = dagadvisor::model;
namespace replay = dagadvisor::replay;
namespace graph = dagadvisor::graph;

inline model::ResourceVector resourcesOf(const sim::Resources& r) {
  return {static_cast<std::int64_t>(r.cpu * 1000), static_cast<std::int64_t>(r.memory), r.gpu};
}

inline model::Node nodeOf(const sim::Node& n) {
  model::Node node;
  node.name = n.name;
  node.allocatable = resourcesOf(n.allocatable);
  node.capacity = resourcesOf(n.capacity);
  node.labels.set("kubernetes.io/hostname", n.name);
  node.labels.set("node-type", n.nodeType);
  node.labels.set("topology.kubernetes.io/zone", n.zone);
  if (!n.accelerator.empty()) {
    node.labels.set("accelerator", n.accelerator);
  }
  for (const sim::Taint& t : n.taints) {
    node.taints.push_back({t.key, t.value, t.effect});
  }
  return node;
}

inline std::optional<double> at(double t, double start) {
  return t == sim::kNever ? std::nullopt : std::optional<double>(start + t);
}

inline model::Pod podOf(const sim::History& h, const sim::Pod& p) {
  const double start = static_cast<double>(h.scenario->start);
  model::Pod pod;
  pod.namespace_ = p.ns;
  pod.name = p.name;
  pod.uid = p.uid;
  pod.requests = resourcesOf(p.request);
  for (const auto& [k, v] : p.labels) {
    pod.labels.set(k, v);
  }
  for (const auto& [k, v] : p.annotations) {
    pod.annotations.set(k, v);
  }
  pod.owner_kind = p.ownerKind;
  pod.owner_name = p.ownerName;
  pod.priority_class = p.priorityClass;
  pod.created = at(p.created, start);
  pod.scheduled = at(p.scheduled, start);
  pod.started = at(p.started, start);
  pod.finished = at(p.finished, start);
  if (p.scheduled != sim::kNever && p.node >= 0) {
    pod.node = static_cast<model::NodeId>(p.node);
    pod.node_name = h.nodes[static_cast<std::size_t>(p.node)].name;
  }
  pod.phase = pod.finished ? model::PodPhase::kSucceeded
                           : (pod.started ? model::PodPhase::kRunning : model::PodPhase::kPending);
  return pod;
}

inline model::WorkflowRun runOf(const sim::History& h, const sim::Run& r) {
  const auto& spec = h.scenario->workflows[static_cast<std::size_t>(r.workflow)];
  model::WorkflowRun run{r.ns, spec.name, r.name, "labels", {}, {}, {}};
  std::vector<int> task_of_spec(spec.tasks.size(), -1);
  for (std::size_t i = 0; i < r.taskPods.size(); ++i) {
    if (r.taskPods[i] >= 0) {
      task_of_spec[i] = static_cast<int>(run.tasks.size());
      run.tasks.push_back({spec.tasks[i].id, static_cast<model::PodId>(r.taskPods[i]), 1, {}});
    }
  }
  for (std::size_t child = 0; child < spec.tasks.size(); ++child) {
    for (const std::string& parent_id : spec.tasks[child].parents) {
      for (std::size_t parent = 0; parent < spec.tasks.size(); ++parent) {
        if (spec.tasks[parent].id == parent_id && task_of_spec[parent] >= 0 &&
            task_of_spec[child] >= 0) {
          run.edges.push_back({static_cast<model::TaskIndex>(task_of_spec[parent]),
                               static_cast<model::TaskIndex>(task_of_spec[child]), false});
        }
      }
    }
  }
  return run;
}

// The scenario's window as the daemon's replay input, before any latency estimate.
inline replay::ReplayInput windowOf(const std::string& name) {
  const sim::Scenario scenario = sim::test::loadShipped(name);
  const sim::History h = sim::simulate(scenario, sim::Policy::kBaseline);
  std::vector<model::Node> nodes;
  for (const sim::Node& n : h.nodes) {
    nodes.push_back(nodeOf(n));
  }
  std::vector<model::Pod> pods;
  for (const sim::Pod& p : h.pods) {
    pods.push_back(podOf(h, p));  // pod ids equal the simulator's: runs refer to them
  }
  const model::ClusterSnapshot cluster(static_cast<double>(scenario.start) + h.end,
                                       std::move(nodes), std::move(pods));
  std::vector<model::WorkflowRun> runs;
  for (const sim::Run& r : h.runs) {
    runs.push_back(runOf(h, r));
  }
  const auto graphs = graph::buildRunGraphs(runs, cluster, graph::WhatIfTransfer{});
  auto input = replay::buildReplayInput(cluster, graphs);
  REQUIRE(input.ok());
  return std::move(*input);
}

}  // namespace replay_window

using replay_window::windowOf;

}  // namespace dagadvisor::sim::test
