// The daemon's advice applied to the simulated objects: the typed `patches` of each
// recommendation in `dagadvisor analyze --output json` (docs/api.md), or a built-in list in the
// same format (the seed's remedies). Every object is patched before the window opens, as if the
// advice had been applied (and the workloads rolled) before the runs arrived.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "scenario.h"

namespace dagadvisor::sim {

/// The patches to apply, in step order; each carries the id of its recommendation.
struct Advice {
  std::string source;  // "baseline", "remedied" or the file the patches came from
  std::vector<nlohmann::json> patches;
  std::vector<std::string> notes;  // the recommendations' `notes`: what could not be expressed
  /// The window the daemon replayed (the report's prediction.window), in unix seconds: what the
  /// comparison measures again to set the realised gain beside the predicted one.
  std::optional<std::pair<std::int64_t, std::int64_t>> window{};
};

/// The patches of a recommendations document (`{"recommendations": [{"id", "patches"}]}`),
/// only those of `ids` when it is not empty. Unknown ids are an error.
std::optional<Advice> adviceFrom(const nlohmann::json& document,
                                 const std::vector<std::string>& ids, std::string& error);

/// Reads and parses FILE; nullopt with a message on a missing file or bad JSON.
std::optional<Advice> loadAdvice(const std::string& path, const std::vector<std::string>& ids,
                                 std::string& error);

/// The seed's remedies, switched by `scenario.remedies`, as a recommendations document.
nlohmann::json builtinRemedies(const Scenario& scenario);

/// builtinRemedies as advice, its source "remedied".
Advice remediesAdvice(const Scenario& scenario);

/// Applies the advice to each object as the simulator creates it and records, per patch, what
/// it changed, what it matched nothing on and which variants failed.
class AdviceApplier {
 public:
  explicit AdviceApplier(const Advice& advice);

  /// Node patches (by name) on a v1 Node object.
  void patchNode(nlohmann::json& node);
  /// PriorityClass `create` documents, added to the classes (an existing name fails).
  void createPriorityClasses(std::vector<PriorityClassSpec>& classes);
  /// DaemonSet and Deployment patches (by kind, namespace and name) on an apps/v1 object.
  void patchWorkload(nlohmann::json& object);
  /// `pod_variants` / `pod_document` of the patches whose `pods` select this task pod, except
  /// those of Argo objects, which reach their pods through applyArgoWorkflow.
  void patchTaskPod(nlohmann::json& pod);
  /// Argo: the pod's Workflow `workflow`, submitted from the WorkflowTemplate `workflowTemplate`
  /// of namespace `ns` (both as patched, each patched once; its spec.templates are `steps`, one
  /// per task, in order), sets the pod fields of its step `step` on the pod as the controller
  /// does when it creates the pod: the step's tolerations, affinity and priorityClassName, else
  /// the workflow-wide ones (spec.tolerations, spec.affinity, spec.podPriorityClassName), and
  /// the step's nodeSelector over the workflow-wide one. Fields the workflow does not set keep
  /// the pod's.
  void applyArgoWorkflow(nlohmann::json& pod, const std::string& ns,
                         const std::string& workflowTemplate, const std::string& workflow,
                         const std::vector<std::string>& steps, const std::string& step);

  /// One entry per patch: recommendation, step, object, status and targets.
  nlohmann::json report() const;

 private:
  struct Outcome {
    std::vector<std::string> applied;  // object names
    std::vector<std::string> failed;   // object names whose variants all failed
    std::string skipped;               // why the patch was not applied at all
  };
  bool applyTo(std::size_t index, nlohmann::json& object, const char* variantsKey,
               const char* documentKey, const std::string& name);

  const nlohmann::json& argoObject(const std::string& kind, const std::string& ns,
                                   const std::string& name, const nlohmann::json& from);

  std::vector<nlohmann::json> patches_;
  std::vector<Outcome> outcomes_;
  std::map<std::string, nlohmann::json> argoObjects_;  // "kind ns/name" → the patched object
};

/// A human-readable line per report entry, for the command line.
std::vector<std::string> describeReport(const nlohmann::json& report);

}  // namespace dagadvisor::sim
