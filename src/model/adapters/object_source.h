#pragma once

#include <memory>
#include <string>
#include <vector>

#include "model/adapters/workflow_objects.h"
#include "model/scheduling_spec.h"
#include "model/workflow.h"

namespace dagadvisor::model {

/// Which runs a workflow object describes, by its name: the one run of that name (an Argo
/// Workflow, a Tekton PipelineRun), the one run named "<dag>/<run>" (an Airflow DAG run, whose
/// run ids repeat across DAGs), or every run of the DAG of that name (a static task list).
enum class ObjectScope { kRun, kDagRun, kDag };

/// A workflow object as a source delivered it, with where it applies.
struct SourcedObject {
  WorkflowObject object;   // object.engine and object.name pick the runs
  std::string namespace_;  // the runs' Kubernetes namespace; "" matches any namespace
  ObjectScope scope = ObjectScope::kRun;
};

/// What one source delivered in a cycle. Gaps (an engine not installed, a forbidden resource,
/// an unreachable API) are warnings for the report, never a failed cycle.
struct ObjectFetch {
  std::vector<SourcedObject> objects;
  std::vector<std::string> warnings;
};

/// The scheduling facts one source delivered in a cycle (SchedulingSpecs), with its gaps.
struct SchedulingFetch {
  SchedulingSpecs specs;
  std::vector<std::string> warnings;
};

/// A source of workflow objects with exact task edges: the Kubernetes API (Argo, Tekton), an
/// Airflow REST API, … The cycle asks each one in turn; adding a source is one more entry in
/// the list it gets.
class ObjectSource {
 public:
  virtual ~ObjectSource() = default;

  /// The objects as they are now. `runs` are the runs rebuilt from pods (without inferred
  /// edges), for sources that ask per run; others ignore them.
  virtual ObjectFetch fetch(const std::vector<WorkflowRun>& runs) = 0;

  /// The cluster's scheduling facts that kube-state-metrics does not export (PriorityClass
  /// values, pending pods' node affinity), read before the runs are built. Sources without
  /// them deliver nothing (every family not known).
  virtual SchedulingFetch fetchScheduling() { return {}; }

  /// A short description for logs and reports; never contains credentials.
  virtual std::string describe() const = 0;
};

using ObjectSourcePtr = std::unique_ptr<ObjectSource>;

}  // namespace dagadvisor::model
