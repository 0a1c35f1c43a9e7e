#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "analysis/analysis_input.h"
#include "analysis/detector.h"
#include "analysis/evidence.h"
#include "config/config.h"
#include "graph/run_graph.h"
#include "model/cluster.h"

namespace dagadvisor::analysis {

/// part / whole, or 0 when whole is not positive.
double share(std::int64_t part, std::int64_t whole);

/// printf-style formatting into a std::string (no std::format on GCC 12).
std::string formatText(const char* format, ...) __attribute__((format(printf, 1, 2)));

/// The q-quantile (0…1) of `values` by linear interpolation; 0 when empty. Reorders `values`.
double quantile(std::vector<double>& values, double q);

/// True for pods of long-running services: owned by a ReplicaSet, Deployment or StatefulSet.
bool isServicePod(const model::Pod& pod);

/// True for workflow task pods: they carry the DAG label (`dag_key`, normalized once by the
/// caller with model::LabelSet::normalizeKey), or a Job / Workflow owns them.
bool isBatchPod(const model::Pod& pod, std::string_view dag_key);

/// A node any pod may land on: schedulable, without NoSchedule / NoExecute taints.
bool openToAll(const model::Node& node);

/// The pod of task `t`, or nullptr when the run refers past the snapshot's pods.
const model::Pod* taskPod(const graph::RunGraph& rg, model::TaskIndex t,
                          const model::ClusterSnapshot& cluster);

/// A task of a recurring DAG, as views into its run: a hash key that allocates nothing. An
/// empty `dag` stands for "any DAG of the namespace".
struct TaskKey {
  std::string_view namespace_;
  std::string_view dag;
  std::string_view task;

  bool operator==(const TaskKey&) const = default;
};

struct TaskKeyHash {
  std::size_t operator()(const TaskKey& k) const;
};

/// The key of task `t` of `run`; the views live as long as the run.
TaskKey taskKey(const model::WorkflowRun& run, model::TaskIndex t);

/// Median run seconds of every finished task, by task of its DAG: what an unfinished task of a
/// recurring DAG is expected to take. The keys point into `runs`, which must outlive the map.
std::unordered_map<TaskKey, double, TaskKeyHash> typicalTaskSeconds(
    const std::vector<graph::RunGraph>& runs, const model::ClusterSnapshot& cluster);

/// Which run `run` is and the labels that select its pods (and its DAG's): the scope of
/// run-level evidence.
RunScope runScope(const model::WorkflowRun& run);

/// True, after telling `out` why (FindingSink::noAdvice), when the input holds no workflow run:
/// the run-level detectors then have nothing to judge.
bool noRunsToJudge(const AnalysisInput& input, FindingSink& out);

/// A JSON array of `render(item)` for every item, in order: evidence lists.
template <typename T, typename Render>
nlohmann::json jsonArrayOf(const std::vector<T>& items, Render render) {
  nlohmann::json out = nlohmann::json::array();
  for (const T& item : items) {
    out.push_back(render(item));
  }
  return out;
}

/// True, after telling `out` why, when the snapshot holds no node.
bool noNodesToJudge(const AnalysisInput& input, FindingSink& out);

}  // namespace dagadvisor::analysis
