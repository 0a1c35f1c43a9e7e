#include "advice/engine_patch.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "advice/pod_owners.h"

namespace dagadvisor::advice {
namespace {

// The pod-spec field names the engines use (Tekton's podTemplate and Argo's templates use the
// pod spec's own names; only Argo's workflow-wide priority differs).
std::string fieldName(PodField field) {
  switch (field) {
    case PodField::kTolerations:
      return "tolerations";
    case PodField::kAffinity:
      return "affinity";
    case PodField::kNodeSelector:
      return "nodeSelector";
    case PodField::kPriorityClass:
      return "priorityClassName";
  }
  return "";
}

std::string argoNative(PodField field) {
  const std::string name = fieldName(field);
  const std::string wide = field == PodField::kPriorityClass ? "podPriorityClassName" : name;
  return "Argo Workflows: in the WorkflowTemplate (a CronWorkflow: under spec.workflowSpec) set "
         "spec." +
         wide + " for every step, or spec.templates[]." + name +
         " for one step (a template's own " + name +
         " replaces the workflow-wide one: add the entry there too where a template has one); "
         "spec.podSpecPatch works as well. Per-run values: {{workflow.name}}.";
}

std::string kubeflowNative(PodField field) {
  static const char* const kCalls[] = {"kfp.kubernetes.add_toleration(task, …)",
                                       "kfp.kubernetes.add_node_affinity(task, …)",
                                       "kfp.kubernetes.add_node_selector(task, …)",
                                       "the compiled Argo Workflow's priorityClassName"};
  return std::string("Kubeflow Pipelines: in the pipeline code, ") +
         kCalls[static_cast<int>(field)] +
         " per task; runs are Argo Workflows, so the Argo fields of the compiled workflow work "
         "too. Per-run values: the pipeline/runid label.";
}

std::string airflowNative(PodField field) {
  static const char* const kArgs[] = {"tolerations=[k8s.V1Toleration(…)]",
                                      "affinity=k8s.V1Affinity(…)", "node_selector={…}",
                                      "priority_class_name=…"};
  return std::string("Airflow: KubernetesPodOperator(") + kArgs[static_cast<int>(field)] +
         "), or for KubernetesExecutor tasks executor_config={\"pod_override\": "
         "k8s.V1Pod(spec=k8s.V1PodSpec(" +
         fieldName(field) +
         "=…))} (keep the entries of your pod_template_file: the override's list replaces "
         "them), or the pod_template_file itself (documents below). Per-run values: "
         "pod_mutation_hook in airflow_local_settings.py, from the pod's run_id label.";
}

std::string tektonNative(PodField field) {
  return "Tekton: in each PipelineRun (its TriggerTemplate, or whatever creates it) set "
         "spec.taskRunTemplate.podTemplate." +
         fieldName(field) + " for every task, or spec.taskRunSpecs[].podTemplate." +
         fieldName(field) +
         " for one pipelineTask. Per-run values: the tekton.dev/pipelineRun label; to keep a "
         "run's pods together, the coschedule feature flag (affinity assistant).";
}

std::string sparkNative(PodField field) {
  return "Spark: in the SparkApplication, spec.driver." + fieldName(field) + " and spec.executor." +
         fieldName(field) + ", or spark.kubernetes.{driver,executor}.podTemplateFile.";
}

// A Job's pod template cannot change once created; the CronJob that makes it can. A CronJob's
// Jobs are named <cronjob>-<scheduled minute>.
std::string cronJobOf(const std::string& job) {
  const auto dash = job.rfind('-');
  const bool numbered = dash != std::string::npos && dash + 1 < job.size() &&
                        std::all_of(job.begin() + static_cast<std::ptrdiff_t>(dash) + 1, job.end(),
                                    [](unsigned char c) { return std::isdigit(c); });
  return numbered ? job.substr(0, dash) : job;
}

std::string lowerKind(std::string kind) {
  std::transform(kind.begin(), kind.end(), kind.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return kind;
}

std::string kubectlPatch(const std::string& kind, const std::string& name,
                         const std::string& namespace_) {
  return "kubectl patch " + lowerKind(kind) + " " + name +
         (namespace_.empty() ? "" : " -n " + namespace_) +
         " --type=json --patch-file <this document>";
}

constexpr const char* kArgoApi = "argoproj.io/v1alpha1";

const std::string kLocalPatch =
    "kubectl patch --local -f <manifest> --type=json --patch-file <this document> -o yaml";

PodSpecSite controllerSite(const PodOwner& owner) {
  const std::string ns = owner.namespace_;
  PodSpecSite site;
  site.path.base = {"spec", "template", "spec"};
  if (owner.kind == "Deployment" || owner.kind == "ReplicaSet" || owner.kind == "StatefulSet" ||
      owner.kind == "DaemonSet") {
    std::string name = owner.name;
    std::string kind = owner.kind;
    if (kind == "ReplicaSet") {  // edited through its Deployment (the name without the hash)
      if (auto deployment = deploymentOf(name, "")) {
        kind = "Deployment";
        name = *deployment;
      }
    }
    site.object = {"apps/v1", kind, ns, {name}};
    site.description = kind + " " + ns + "/" + name;
    site.apply = kubectlPatch(kind, name, ns);
    site.native = "Change the " + kind +
                  "'s pod template (spec.template.spec) in its manifest too, "
                  "or the next apply undoes it.";
  } else if (owner.kind == "Job" && cronJobOf(owner.name) == owner.name) {
    // A Job of its own (not named as a CronJob names its Jobs): its manifest, for its next run.
    site.object = {"batch/v1", "Job", ns, {owner.name}};
    site.description = "the manifest of Job " + ns + "/" + owner.name;
    site.apply =
        "kubectl patch --local -f <job manifest> --type=json --patch-file <this document> "
        "-o yaml";
    site.native =
        "A Job's pod template cannot change once the Job exists: change its manifest "
        "(spec.template.spec) for its next run.";
  } else if (owner.kind == "Job" || owner.kind == "CronJob") {
    const std::string cron = owner.kind == "CronJob" ? owner.name : cronJobOf(owner.name);
    site.path.base = {"spec", "jobTemplate", "spec", "template", "spec"};
    site.object = {"batch/v1", "CronJob", ns, {cron}};
    site.description = "CronJob " + ns + "/" + cron;
    site.apply = kubectlPatch("CronJob", cron, ns);
    site.native =
        "A Job's pod template cannot change once the Job exists: patch the CronJob that "
        "creates it (below), or the Job's manifest (spec.template.spec) for its next run.";
  } else {
    site.path.base = {"spec"};
    site.object = {
        "v1", "Pod", ns,
        owner.kind == "Pod" ? std::vector<std::string>{owner.name} : std::vector<std::string>{}};
    site.description = "the manifest of the pods of " + owner.name;
    site.apply = kLocalPatch;
    site.native =
        "Change the pod spec where these pods are defined (their manifest or the tool "
        "that creates them).";
  }
  return site;
}

PodSpecSite engineSite(const PodOwner& owner, PodField field) {
  PodSpecSite site;
  const std::string dag = owner.namespace_ + "/" + owner.name;
  if (owner.engine == "argo" || owner.engine == "kubeflow") {
    site.path.base = {"spec"};
    site.object = {kArgoApi, "WorkflowTemplate", owner.namespace_, {owner.name}};
    site.description = "the WorkflowTemplate (or Workflow) of " + dag;
    site.apply = kubectlPatch("WorkflowTemplate", owner.name, owner.namespace_);
    site.priority_field = "podPriorityClassName";
    site.native = owner.engine == "argo" ? argoNative(field) : kubeflowNative(field);
  } else if (owner.engine == "tekton") {
    site.path = {{"spec"}, {"taskRunTemplate", "podTemplate"}};
    site.object = {"tekton.dev/v1", "PipelineRun", owner.namespace_, owner.runs};
    site.description = "each PipelineRun of " + dag;
    site.apply = kLocalPatch + " (on the PipelineRun your trigger or script creates)";
    site.native = tektonNative(field);
  } else if (owner.engine == "airflow") {
    site.path.base = {"spec"};
    site.object = {"v1", "Pod", owner.namespace_, {}};
    site.description = "the pod_template_file (or pod_override) of " + dag;
    site.apply = kLocalPatch + " (on the pod_template_file)";
    site.native = airflowNative(field);
  } else {
    site = controllerSite({"", owner.namespace_, "", owner.name});
    site.description = "the pod template of every task of " + dag;
    if (owner.engine == "spark") {
      site.native = sparkNative(field);
    }
  }
  return site;
}

// One shell line running `command` (which names "$pod") for each of `names`: hundreds of
// pending pods are one line to paste, not hundreds.
std::string podLoop(const std::vector<std::string>& names, const std::string& command) {
  std::string list;
  for (const std::string& name : names) {
    list += (list.empty() ? "" : " ") + name;
  }
  return "for pod in " + list + "; do " + command + "; done";
}

}  // namespace

PodSpecSite podSpecSite(const PodOwner& owner, PodField field) {
  // Pods owned by an engine's object (a pool-mismatch workload) are changed where that engine
  // defines them; the object's name stands for the DAG.
  if (owner.engine.empty() &&
      (owner.kind == "Workflow" || owner.kind == "PipelineRun" || owner.kind == "TaskRun")) {
    const std::string engine = owner.kind == "Workflow" ? "argo" : "tekton";
    PodSpecSite site = engineSite({engine, owner.namespace_, "", owner.name}, field);
    if (engine == "argo") {  // a run's Workflow: its template is what later runs are made from
      site.object = {kArgoApi, "Workflow", owner.namespace_, {owner.name}};
      site.description = "Workflow " + owner.namespace_ + "/" + owner.name +
                         " (its pods not yet created), and the WorkflowTemplate it was made "
                         "from for later runs";
      site.apply = kubectlPatch("Workflow", owner.name, owner.namespace_);
    } else if (owner.kind == "PipelineRun") {
      site.object.names = {owner.name};
    }
    return site;
  }
  return owner.engine.empty() ? controllerSite(owner) : engineSite(owner, field);
}

Patch podChangePatch(const PodOwner& owner, PodField field, const std::string& what,
                     const std::function<JsonPatchVariants(const PodSpecSite&)>& build,
                     std::optional<PodSelection> pods, int step) {
  const PodSpecSite site = podSpecSite(owner, field);
  Patch patch;
  patch.step = step;
  patch.purpose = what + " in " + site.description;
  patch.object = site.object;
  patch.variants = build(site);
  patch.command = site.apply;
  patch.engine_note = site.native;
  if (pods) {
    if (patch.object.kind == "Pod" && patch.object.names.empty()) {
      patch.object.names = pods->names;
    }
    PodSpecSite pod_site;  // a Pod's own spec, where every engine's fields end up
    pod_site.object = {"v1", "Pod", pods->namespace_, pods->names};
    pod_site.description = "each selected Pod";
    pod_site.path.base = {"spec"};
    patch.pod_variants = build(pod_site);
    patch.pods = std::move(pods);
  }
  return patch;
}

Patch livePodsPatch(const PodSelection& pods, const std::string& what,
                    const std::function<JsonPatchVariants(const PodSpecSite&)>& build, int step) {
  PodSpecSite site;
  site.object = {"v1", "Pod", pods.namespace_, pods.names};
  site.description = "the pods themselves (" + std::to_string(pods.names.size()) + " in " +
                     pods.namespace_ + ", created before the change reached their definition)";
  site.path.base = {"spec"};
  Patch patch;
  patch.step = step;
  patch.purpose = what + " in " + site.description;
  patch.object = site.object;
  patch.variants = build(site);
  patch.command = pods.names.size() == 1
                      ? kubectlPatch("Pod", pods.names[0], pods.namespace_)
                      : podLoop(pods.names, kubectlPatch("Pod", "\"$pod\"", pods.namespace_));
  return patch;  // the object is the pods: no `pods` selection beside it
}

std::pair<std::vector<std::pair<std::string, std::string>>, bool> perRunLabels(
    const std::string& engine, const std::vector<std::pair<std::string, std::string>>& labels) {
  auto out = labels;
  bool templated = false;
  if (engine == "argo") {
    for (auto& [key, value] : out) {
      if (key == "workflows.argoproj.io/workflow") {
        value = "{{workflow.name}}";
        templated = true;
      }
    }
  }
  return {std::move(out), templated};
}

std::string engineNotes(const std::vector<std::string>& engines, PodField field) {
  std::set<std::string> seen;
  std::string out;
  for (const std::string& engine : engines) {
    if (engine.empty() || !seen.insert(engine).second) {
      continue;
    }
    const std::string note = podSpecSite({engine, "", "", ""}, field).native;
    if (!note.empty()) {
      out += (out.empty() ? "" : " ") + note;
    }
  }
  return out;
}

}  // namespace dagadvisor::advice
