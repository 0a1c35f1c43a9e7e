#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/clock.h"
#include "common/result.h"

namespace dagadvisor::model {

/// One task of a workflow object, at the level of the pods the adapters rebuild (an Argo retry
/// and its attempts are one task; a KFP driver and executor are one task).
struct ObjectTask {
  std::string id;                    // the task id the pod adapters give the same task
  std::vector<std::string> parents;  // as the object declares, sorted, without duplicates
  std::string phase;  // the engine's word (Succeeded, Failed, Omitted, …); "" unknown
  std::optional<UnixSeconds> started;
  std::optional<UnixSeconds> finished;
  std::string node;            // Kubernetes node the latest attempt ran on; "" unknown
  std::uint32_t attempts = 0;  // attempts (pods) seen; 0 when the task never ran
};

/// The DAG a workflow object (Argo Workflow, Tekton PipelineRun, KFP pipeline, Airflow DAG)
/// declares.
struct WorkflowObject {
  std::string engine;  // "argo", "tekton", "kubeflow", "airflow"
  std::string name;
  std::vector<ObjectTask> tasks;  // sorted by id
  /// Data gaps (offloaded or compressed node status, unknown children, …): the object was read
  /// as far as it goes, nothing was invented.
  std::vector<std::string> problems;

  /// The task with `id`, or nullptr.
  const ObjectTask* find(std::string_view id) const;
  /// Number of parent → child edges.
  std::size_t edgeCount() const;
};

/// The largest inflated `status.compressedNodes` parseArgoWorkflow decodes (64 MiB): a bound on
/// memory against a gzip bomb; Argo offloads node status long before this size.
inline constexpr std::size_t kMaxArgoInflatedBytes = std::size_t{64} << 20;

/// An Argo Workflow's `status.nodes` as task-level edges: retries collapse into their task,
/// DAG, Steps, StepGroup, Retry and TaskGroup nodes are crossed (a link into one reaches the
/// tasks it starts with), so `A(0).children = [sub-dag]` becomes A → the sub-DAG's first tasks.
/// Timings and node come from the latest attempt. A compressed node status
/// (`status.compressedNodes`: base64 of the gzipped nodes map) is decoded; one that is corrupt or
/// inflates beyond `max_inflated_bytes`, and an offloaded one, are problems (data gaps), not
/// errors. Errors: not a JSON object.
Result<WorkflowObject> parseArgoWorkflow(const nlohmann::json& workflow,
                                         std::size_t max_inflated_bytes = kMaxArgoInflatedBytes);

/// A Tekton PipelineRun (the resolved `status.pipelineSpec`, else `spec.pipelineSpec`) or a
/// Pipeline (`spec`): edges from `runAfter` and from result references `$(tasks.X.results.Y)`
/// anywhere in a task; `finally` tasks depend on the sinks of the main tasks (so they run after
/// all of them). `task_runs` (TaskRun objects, matched through `childReferences` or the label
/// `tekton.dev/pipelineTask`) give timings and attempts. Errors: no pipeline spec found.
Result<WorkflowObject> parseTektonPipelineRun(const nlohmann::json& object,
                                              const std::vector<nlohmann::json>& task_runs);
/// The same without TaskRuns. (An overload, not a default `= {}`: json is only declared here,
/// and clang builds a default argument's vector where it is declared.)
Result<WorkflowObject> parseTektonPipelineRun(const nlohmann::json& object);

/// A KFP v2 pipeline: either the IR (PipelineSpec, `root.dag.tasks.<t>.dependentTasks`) or the
/// Argo Workflow KFP compiles it to (`depends` on the `<t>-driver` tasks of the `root` template,
/// collapsed to user tasks). Both give the same user-level edges. Errors: neither shape found.
Result<WorkflowObject> parseKfpPipeline(const nlohmann::json& pipeline);

/// Airflow's REST answer `GET /api/{v1,v2}/dags/{dag_id}/tasks` (`{"tasks":[{task_id,
/// downstream_task_ids}]}`): the DAG's static edges, the same for every run (and every map index
/// of a mapped task). Errors: no `tasks` array.
Result<WorkflowObject> parseAirflowTasks(const nlohmann::json& response);

}  // namespace dagadvisor::model
