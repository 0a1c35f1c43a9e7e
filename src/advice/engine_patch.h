#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "advice/patch.h"
#include "advice/patch_yaml.h"

namespace dagadvisor::advice {

/// Whose pods a change is for: a workflow engine's DAG, or a plain controller.
struct PodOwner {
  /// WorkflowRun::engine ("argo", "airflow", "tekton", "kubeflow", "spark", "labels"), or ""
  /// for pods of a plain controller (Deployment, StatefulSet, DaemonSet, Job, …).
  std::string engine;
  std::string namespace_;
  std::string kind;  // the owner kind as kube-state-metrics reports it ("ReplicaSet", "Job", …)
  std::string name;  // the owner's name; for an engine, the DAG
  std::vector<std::string> runs{};  // for an engine, the runs seen (Tekton: PipelineRun names)
};

/// The pod-spec field a change writes: engines name and place some of them differently.
enum class PodField { kTolerations, kAffinity, kNodeSelector, kPriorityClass };

/// Where one change to `owner`'s pods goes: the object to patch, how, the path of its pod spec,
/// and how to write the same thing in the engine's own terms.
struct PodSpecSite {
  /// The object to edit. Kind "Pod" with no names: the pods an engine creates from a template
  /// the daemon cannot name (Airflow's pod_template_file, a submitter's manifest).
  PatchObject object;
  std::string description;  // what to edit: "Deployment web/api", "the WorkflowTemplate of …"
  std::string apply;        // the command that takes a document below
  PodSpecPath path;         // where the pod spec sits in that object
  std::string priority_field = "priorityClassName";  // Argo's workflow-wide one differs
  std::string native;                                // how to write it in the engine's terms
};
PodSpecSite podSpecSite(const PodOwner& owner, PodField field);

/// One change to `owner`'s pods (`what`, e.g. "tolerate nvidia.com/gpu") as a JSON patch:
/// `build` makes its variants at the owner's pod-spec path, and again at a Pod's own spec for
/// `pods`, the pods it lands on (pod_variants; none when the pods are not known). `step` orders
/// changes that depend on each other. A Pod object with no names takes the names `pods` lists.
/// `build` sees the Pod itself as a site of kind "Pod" with path "spec".
Patch podChangePatch(const PodOwner& owner, PodField field, const std::string& what,
                     const std::function<JsonPatchVariants(const PodSpecSite&)>& build,
                     std::optional<PodSelection> pods, int step = 1);

/// The same change made to existing pods themselves (`pods.names` in `pods.namespace_`), one
/// `kubectl patch pod` each: for the fields a live pod takes (tolerations may be added to a pod
/// that exists), where the engine's or controller's definition reaches only the pods it makes
/// next (a pending pod keeps the spec it was created with). The patch's object is those Pods, its
/// variants at a Pod's root; it has no `pods` selection (the object is the selection).
Patch livePodsPatch(const PodSelection& pods, const std::string& what,
                    const std::function<JsonPatchVariants(const PodSpecSite&)>& build, int step);

/// `labels` with the values an engine fills in per run replaced by its template expression where
/// it has one (Argo: workflows.argoproj.io/workflow → "{{workflow.name}}"), so one pod template
/// serves every run. The second member says whether any value was templated.
std::pair<std::vector<std::pair<std::string, std::string>>, bool> perRunLabels(
    const std::string& engine, const std::vector<std::pair<std::string, std::string>>& labels);

/// One sentence per engine in `engines` on where its pods' `field` is written, for action texts.
std::string engineNotes(const std::vector<std::string>& engines, PodField field);

}  // namespace dagadvisor::advice
