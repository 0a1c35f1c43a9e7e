// Seed-convention task pods for the cluster what-if tests: one helper per pod state.
#pragma once

#include <catch2/catch.hpp>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/adapters/labelled_pods.h"
#include "support/builders.h"

namespace dagadvisor::testing {

/// Where a task pod is: its node ("" = pending), requests and times (nullopt: not yet).
struct TaskPod {
  std::string run;
  std::string id;
  std::string parents;  // comma-separated task ids
  std::string node;
  double cores = 1;
  std::int64_t gpus = 0;
  double created = 0;
  std::optional<double> started;
  std::optional<double> finished;
};

inline model::Pod taskPod(const TaskPod& t) {
  return makePod("ml", t.run + "-" + t.id, t.node, t.cores, 1, t.gpus, [&](model::Pod& p) {
    p.labels.set("dag-id", "d");
    p.labels.set("dag-run", t.run);
    p.labels.set("task-id", t.id);
    p.annotations.set("workflow.dependencies", t.parents);
    p.created = t.created;
    p.scheduled = t.started;
    p.started = t.started;
    p.finished = t.finished;
    if (t.finished) {
      p.phase = model::PodPhase::kSucceeded;
    }
  });
}

/// A finished task: created at `start`, ran `start` → `end`.
inline TaskPod done(std::string run, std::string id, std::string parents, std::string node,
                    double start, double end, double cores = 1, std::int64_t gpus = 0) {
  return {std::move(run),  std::move(id), std::move(parents),
          std::move(node), cores,         gpus,
          start,           start,         end};
}

/// A pending task (no node) created at `created`.
inline TaskPod pending(std::string run, std::string id, std::string parents, double created,
                       double cores = 1, std::int64_t gpus = 0) {
  return {std::move(run), std::move(id), std::move(parents), "",          cores,
          gpus,           created,       std::nullopt,       std::nullopt};
}

/// A cluster at time `at` and the seed-convention runs of its pods (sorted by run id).
struct WhatIfCase {
  model::ClusterSnapshot cluster;
  std::vector<model::WorkflowRun> runs;

  const model::WorkflowRun& run(const std::string& name) const {
    for (const auto& r : runs) {
      if (r.run == name) {
        return r;
      }
    }
    FAIL("no run " << name);
    return runs.front();
  }
};

inline std::unique_ptr<WhatIfCase> whatIfCase(double at, std::vector<model::Node> nodes,
                                              const std::vector<TaskPod>& tasks) {
  std::vector<model::Pod> pods;
  for (const TaskPod& t : tasks) {
    pods.push_back(taskPod(t));
  }
  auto out = std::unique_ptr<WhatIfCase>(
      new WhatIfCase{model::ClusterSnapshot(at, std::move(nodes), std::move(pods)), {}});
  out->runs = model::buildLabelledRuns(out->cluster, config::WorkflowLabels{});
  return out;
}

}  // namespace dagadvisor::testing
