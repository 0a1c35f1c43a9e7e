#pragma once

#include <deque>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "analysis/detector.h"
#include "graph/run_graph.h"
#include "support/builders.h"

namespace dagadvisor::testing {

/// What `detector` finds in `cluster` with `runs` (none: a detector of the cluster alone).
inline std::vector<analysis::Finding> findingsOf(const analysis::Detector& detector,
                                                 const model::ClusterSnapshot& cluster,
                                                 const std::vector<graph::RunGraph>& runs = {},
                                                 const config::Config& config = {}) {
  analysis::FindingSink sink;
  detector.analyze({cluster, runs, config}, sink);
  return sink.findings();
}

/// One task of a hand-made run: its id, the node its pod ran on ("" = unscheduled) and when.
struct TaskSpec {
  std::string id;
  std::string node;
  double start = 0;
  double finish = 0;  // <= start: still running at the analysis time
  double cores = 1;
};

/// A cluster plus runs rebuilt by hand (no adapter), with their graphs: the input of the
/// run-level detectors. Runs live in a deque so that RunGraph::run stays valid.
struct RunFixture {
  std::vector<model::Node> nodes;
  std::vector<model::Pod> pods;
  std::deque<model::WorkflowRun> runs;
  std::unique_ptr<model::ClusterSnapshot> cluster;
  std::vector<graph::RunGraph> graphs;
  UnixSeconds at = 10'000;
  model::SchedulingSpecs specs;  // what the Kubernetes API listed (nothing by default)
  std::unordered_map<model::PodId, model::NetworkReceive> received;  // by task pod

  /// Adds a run ns/dag/run of `tasks` with `edges` (task indices) and the seed labels.
  void addRun(const std::string& ns, const std::string& dag, const std::string& run,
              const std::vector<TaskSpec>& tasks, const std::vector<model::Edge>& edges) {
    model::WorkflowRun r{ns, dag, run, "labels", {}, edges, {}};
    for (const TaskSpec& t : tasks) {
      r.tasks.push_back({t.id, static_cast<model::PodId>(pods.size()), 1, {}});
      pods.push_back(makePod(ns, run + "-" + t.id, t.node, t.cores, 1, 0, [&](model::Pod& p) {
        p.labels.set("dag-id", dag);
        p.labels.set("dag-run", run);
        p.labels.set("task-id", t.id);
        p.created = 0;
        if (t.node.empty()) {
          return;
        }
        p.scheduled = t.start;
        p.started = t.start;
        if (t.finish > t.start) {
          p.finished = t.finish;
          p.phase = model::PodPhase::kSucceeded;
        }
      }));
    }
    runs.push_back(std::move(r));
  }

  /// Freezes the cluster at `at` and builds every run's graph.
  void build() {
    cluster = std::make_unique<model::ClusterSnapshot>(at, nodes, pods);
    cluster->joinSchedulingSpecs(specs);
    cluster->joinNetworkReceive(received);
    graphs.clear();
    for (const model::WorkflowRun& r : runs) {
      graphs.push_back(graph::buildRunGraph(r, *cluster));
    }
  }

  std::vector<analysis::Finding> detect(const analysis::Detector& detector,
                                        const config::Config& config = {}) {
    build();
    return findingsOf(detector, *cluster, graphs, config);
  }
};

/// What a pod that fetched `gb` in `fetch_seconds` at a steady rate from the start of a run of
/// `run_seconds` shows in its network receive counter: the total and its mean over the run.
inline model::NetworkReceive fetched(double gb, double fetch_seconds, double run_seconds) {
  const double bytes = gb * 1e9;
  return {bytes, bytes * (1 - fetch_seconds / (2 * run_seconds))};
}

/// A node in `zone` ("" = no zone label).
inline model::Node zonedNode(const std::string& name, const std::string& zone, double cores = 16,
                             double mem_gib = 64) {
  return makeNode(name, cores, mem_gib, 0, [&](model::Node& n) {
    if (!zone.empty()) {
      n.labels.set("topology.kubernetes.io/zone", zone);
    }
  });
}

}  // namespace dagadvisor::testing
