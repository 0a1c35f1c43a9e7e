#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "model/cluster.h"

namespace dagadvisor::model {

using TaskIndex = std::uint32_t;

/// One task of a run: the pod of its latest attempt, and the facts the graph stage needs.
struct Task {
  std::string id;                       // the engine's task id, unique within the run
  PodId pod = 0;                        // latest attempt
  std::uint32_t attempts = 1;           // pods seen for this task (retries)
  std::vector<std::string> parent_ids;  // as declared, before resolution
};

/// A directed dependency parent → child, by task index. `inferred` edges were guessed from
/// timing (the parent finished shortly before the child was created) because the engine did not
/// say; treat them as lower confidence than declared ones.
struct Edge {
  TaskIndex parent;
  TaskIndex child;
  bool inferred = false;
};

/// One execution of a DAG, whatever engine ran it.
struct WorkflowRun {
  std::string namespace_;
  std::string dag;
  std::string run;
  std::string
      engine;  // "labels" (seed convention), "argo", "airflow", "tekton", "kubeflow", "spark"
  std::vector<Task> tasks;
  std::vector<Edge> edges;
  std::vector<std::string> problems;  // data-quality messages; never a reason to crash
  /// The pod labels (keys as set on the pods, not as exported) whose values select this run's
  /// pods and no other run's, as its engine sets them: what a pod affinity "to the same run"
  /// must match. Empty when the engine's labels are not known.
  std::vector<std::pair<std::string, std::string>> selector{};
  /// The same for every run of the DAG (e.g. Tekton's tekton.dev/pipeline); empty when the engine
  /// marks no DAG on its pods (an Argo Workflow not made from a template).
  std::vector<std::pair<std::string, std::string>> dag_selector{};

  std::string id() const { return namespace_ + "/" + dag + "/" + run; }

  /// Whether an edge into task `child` was guessed from timing: its parents may not be its own.
  bool hasInferredParent(TaskIndex child) const {
    return std::any_of(edges.begin(), edges.end(),
                       [child](const Edge& e) { return e.inferred && e.child == child; });
  }
};

}  // namespace dagadvisor::model
