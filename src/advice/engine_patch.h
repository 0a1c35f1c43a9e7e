#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

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
};

/// The pod-spec field a change writes: engines name and place some of them differently.
enum class PodField { kTolerations, kAffinity, kNodeSelector, kPriorityClass };

/// Where one change to `owner`'s pods goes: the object to patch, how, the path of its pod spec,
/// and how to write the same thing in the engine's own terms.
struct PodSpecSite {
  std::string object;  // what to edit: "Deployment web/api", "the WorkflowTemplate of …"
  std::string apply;   // the command that takes a document below
  PodSpecPath path;    // where the pod spec sits in that object
  std::string priority_field = "priorityClassName";  // Argo's workflow-wide one differs
  std::string native;                                // how to write it in the engine's terms
};
PodSpecSite podSpecSite(const PodOwner& owner, PodField field);

using CommentedDocs = std::vector<std::pair<std::string, std::string>>;

/// The documents of one change to `owner`'s pods (`what`, e.g. "add the nvidia.com/gpu
/// toleration"), built by `build` at the owner's pod-spec path, each commented with how to apply
/// it and, when there are several, that the first kubectl accepts is the one (the others fail
/// and change nothing). `step` ("step 1: ") orders changes that depend on each other.
CommentedDocs podChangeDocs(
    const PodOwner& owner, PodField field, const std::string& what,
    const std::function<std::vector<std::string>(const PodSpecSite&)>& build,
    const std::string& step = "");

/// `labels` with the values an engine fills in per run replaced by its template expression where
/// it has one (Argo: workflows.argoproj.io/workflow → "{{workflow.name}}"), so one pod template
/// serves every run. The second member says whether any value was templated.
std::pair<std::vector<std::pair<std::string, std::string>>, bool> perRunLabels(
    const std::string& engine, const std::vector<std::pair<std::string, std::string>>& labels);

/// One sentence per engine in `engines` on where its pods' `field` is written, for action texts.
std::string engineNotes(const std::vector<std::string>& engines, PodField field);

}  // namespace dagadvisor::advice
