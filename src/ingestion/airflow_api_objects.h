#pragma once

#include <string>
#include <vector>

#include "model/adapters/object_source.h"
#include "model/adapters/workflow_objects.h"
#include "sources/airflow/airflow_source.h"

namespace dagadvisor::ingestion {

/// One WorkflowObject per run in `fetch` (what sources::AirflowSource::fetch read), named
/// "<dag_id>/<run_id>" (WorkflowRun::dag + "/" + WorkflowRun::run of the pod adapters' run):
/// edges from the DAG's `downstream_task_ids` (parseAirflowTasks), and per task the timings,
/// attempts and state of its task instances. The instances of a mapped task (map_index >= 0)
/// collapse into the one task: started is the earliest start, finished the latest end (none
/// while any instance is unfinished), attempts the sum of their try numbers (each try is a pod),
/// the state the most active one (running before failed before success). `node` stays empty:
/// Airflow's `hostname` is the worker (a pod name), not a Kubernetes node. A task instance
/// whose task is not in the DAG's task list is added without parents and noted as a problem.
std::vector<model::WorkflowObject> airflowRunObjects(const sources::AirflowFetch& fetch);

/// The Airflow REST API as a source of workflow objects: asks for the DAG runs the pod adapters
/// rebuilt (engine "airflow") and returns one object per run, scoped to "<dag>/<run>". A failed
/// fetch (refused credentials, an unreachable API) is a warning, never a failed cycle.
class AirflowObjects final : public model::ObjectSource {
 public:
  /// Fetches through `source` (not owned; must outlive this object).
  explicit AirflowObjects(sources::AirflowApi& source) : source_(source) {}

  model::ObjectFetch fetch(const std::vector<model::WorkflowRun>& runs) override;
  std::string describe() const override { return source_.describe(); }

 private:
  sources::AirflowApi& source_;
};

}  // namespace dagadvisor::ingestion
