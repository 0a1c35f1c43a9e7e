#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "analysis/analysis_input.h"
#include "analysis/detector.h"
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

/// True for workflow task pods: they carry the DAG label, or a Job / Workflow owns them.
bool isBatchPod(const model::Pod& pod, const config::WorkflowLabels& labels);

/// A node any pod may land on: schedulable, without NoSchedule / NoExecute taints.
bool openToAll(const model::Node& node);

/// The pod of task `t`, or nullptr when the run refers past the snapshot's pods.
const model::Pod* taskPod(const graph::RunGraph& rg, model::TaskIndex t,
                          const model::ClusterSnapshot& cluster);

/// Median run seconds of every finished task, keyed by "<namespace>/<dag>/<task id>": what an
/// unfinished task of a recurring DAG is expected to take.
std::unordered_map<std::string, double> typicalTaskSeconds(const std::vector<graph::RunGraph>& runs,
                                                           const model::ClusterSnapshot& cluster);

/// True, after telling `out` why (FindingSink::noAdvice), when the input holds no workflow run:
/// the run-level detectors then have nothing to judge.
bool noRunsToJudge(const AnalysisInput& input, FindingSink& out);

/// True, after telling `out` why, when the snapshot holds no node.
bool noNodesToJudge(const AnalysisInput& input, FindingSink& out);

/// "<namespace>/<dag>/<task id>" for typicalTaskSeconds().
std::string taskKey(const model::WorkflowRun& run, model::TaskIndex t);

}  // namespace dagadvisor::analysis
