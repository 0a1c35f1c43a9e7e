// The seed's remedies as patches in the daemon's format, so that `remedied` is the same kind of
// change a user applies: taints on GPU nodes and tolerations in the GPU workloads, nodeSelectors
// on node-type, a PriorityClass for the critical path, and preferred zone affinity to the DAG's
// own running pods. Pods are selected by the labels their engine sets; Argo labels no task, so
// per-task changes reach Argo pods only where every task of the namespace wants the same.
#include <map>
#include <set>

#include "builders.h"
#include "patches.h"

namespace dagadvisor::sim {
namespace {

using nlohmann::json;

constexpr const char* kCriticalClass = "dag-critical-path";
constexpr int kCriticalValue = 1000000;
constexpr const char* kZoneKey = "topology.kubernetes.io/zone";

// RFC 6901: `~` and `/` in a key.
std::string escapeKey(const std::string& key) {
  std::string out;
  for (char c : key) {
    out += c == '~' ? "~0" : (c == '/' ? "~1" : std::string(1, c));
  }
  return out;
}

// Two variants: append to the list when there is one, else create it.
json appendVariants(const std::string& listPath, const json& item) {
  return json::array(
      {json::array({{{"op", "add"}, {"path", listPath + "/-"}, {"value", item}}}),
       json::array({{{"op", "test"}, {"path", listPath}, {"value", nullptr}},
                    {{"op", "add"}, {"path", listPath}, {"value", json::array({item})}}})});
}

// Two variants: set the key in the map when there is one, else create the map.
json mapEntryVariants(const std::string& mapPath, const std::string& key, const json& value) {
  return json::array(
      {json::array({{{"op", "add"}, {"path", mapPath + "/" + escapeKey(key)}, {"value", value}}}),
       json::array({{{"op", "test"}, {"path", mapPath}, {"value", nullptr}},
                    {{"op", "add"}, {"path", mapPath}, {"value", json{{key, value}}}}})});
}

using VariantsAt = json (*)(const std::string& root);

// A change to task pods an engine creates: the pods it selects get `variantsAt("/spec")`.
json taskPodPatch(int step, const std::string& purpose, const std::string& ns,
                  const json& matchLabels, const json& podVariants) {
  return json{
      {"step", step},
      {"purpose", purpose},
      {"object",
       {{"api_version", "v1"}, {"kind", "Pod"}, {"namespace", ns}, {"names", json::array()}}},
      {"type", "json"},
      {"variants", json::array()},
      {"pods", {{"namespace", ns}, {"match_labels", matchLabels}, {"names", json::array()}}},
      {"pod_variants", podVariants}};
}

json deploymentPatch(int step, const std::string& purpose, const DeploymentSpec& d,
                     const json& templateVariants, const json& podVariants) {
  return json{
      {"step", step},
      {"purpose", purpose},
      {"object",
       {{"api_version", "apps/v1"},
        {"kind", "Deployment"},
        {"namespace", d.ns},
        {"names", {d.name}}}},
      {"type", "json"},
      {"variants", templateVariants},
      {"pods",
       {{"namespace", d.ns}, {"match_labels", {{"app", d.name}}}, {"names", json::array()}}},
      {"pod_variants", podVariants}};
}

// The labels that select one task's pods, or null when the engine labels no task (Argo).
json taskLabels(const WorkflowSpec& w, const TaskSpec& t) {
  switch (w.engine) {
    case Engine::kSeed:
      return {{"dag-id", w.name}, {"task-id", t.id}};
    case Engine::kAirflow:
      return {{"dag_id", w.name}, {"task_id", t.id}};
    case Engine::kTekton:
      return {{"tekton.dev/pipeline", w.name}, {"tekton.dev/pipelineTask", t.id}};
    case Engine::kArgo:
      break;
  }
  return nullptr;
}

// The labels that select every pod of the workflow, or null (Argo labels the run only).
json workflowLabels(const WorkflowSpec& w) {
  switch (w.engine) {
    case Engine::kSeed:
      return {{"dag-id", w.name}};
    case Engine::kAirflow:
      return {{"dag_id", w.name}};
    case Engine::kTekton:
      return {{"tekton.dev/pipeline", w.name}};
    case Engine::kArgo:
      break;
  }
  return nullptr;
}

struct Builder {
  const Scenario& s;
  json patches = json::array();
  json notes = json::array();

  // Per task: `wants(task)` names the value the task needs (empty: none), and `variants(value)`
  // the change. Argo tasks are changed namespace-wide when all of the namespace's agree, or,
  // `harmlessToOthers` (a toleration attracts nothing), when any wants it.
  template <typename Wants, typename Variants>
  void perTask(int step, const std::string& what, Wants wants, Variants variants,
               bool harmlessToOthers = false) {
    std::map<std::string, std::set<std::string>> argoValues;  // namespace -> values wanted
    for (const auto& w : s.workflows) {
      for (const auto& t : w.tasks) {
        const std::string value = wants(t);
        if (w.engine == Engine::kArgo) {
          argoValues[w.ns].insert(value);
        } else if (!value.empty()) {
          patches.push_back(taskPodPatch(step, what + " " + value + " for " + w.name + "/" + t.id,
                                         w.ns, taskLabels(w, t), variants(value)));
        }
      }
    }
    for (auto& [ns, values] : argoValues) {
      if (harmlessToOthers && values.size() > 1) {
        values.erase("");
      }
      if (values.size() == 1 && !values.begin()->empty()) {
        patches.push_back(taskPodPatch(step,
                                       what + " " + *values.begin() + " for every pod of " + ns, ns,
                                       json::object(), variants(*values.begin())));
      } else if (values.size() > 1) {
        notes.push_back(what + ": the Argo tasks of " + ns + " differ and Argo labels no task");
      }
    }
  }

  json recommendation(const std::string& id) {
    json rec{{"id", id}, {"patches", patches}, {"notes", notes}};
    patches = json::array();
    notes = json::array();
    return rec;
  }
};

json gpuTaint() {
  return {{"key", kGpuTaintKey}, {"value", "present"}, {"effect", "NoSchedule"}};
}

json gpuToleration() {
  return {{"key", kGpuTaintKey}, {"operator", "Exists"}, {"effect", "NoSchedule"}};
}

json gpuTaints(Builder& b) {
  const Scenario& s = b.s;
  b.perTask(
      1, "tolerate",
      [](const TaskSpec& t) { return t.request.gpu > 0 ? std::string(kGpuTaintKey) : ""; },
      [](const std::string&) { return appendVariants("/spec/tolerations", gpuToleration()); },
      true);
  for (const auto& d : s.deployments) {
    if (d.request.gpu > 0) {
      b.patches.push_back(
          deploymentPatch(1, "tolerate nvidia.com/gpu", d,
                          appendVariants("/spec/template/spec/tolerations", gpuToleration()),
                          appendVariants("/spec/tolerations", gpuToleration())));
    }
  }
  json names = json::array();
  for (const auto& pool : s.nodePools) {
    for (int i = 0; pool.capacity.gpu > 0 && i < pool.count; ++i) {
      names.push_back(nodeName(pool, i));
    }
  }
  if (names.empty()) {
    b.patches = json::array();  // no GPU node to taint: nothing to tolerate either
    b.notes.push_back("gpu taints: the cluster has no GPU nodes");
    return b.recommendation("builtin-gpu-taints");
  }
  b.patches.push_back(json{
      {"step", 2},
      {"purpose", "taint the GPU nodes: only pods that tolerate it land there"},
      {"object", {{"api_version", "v1"}, {"kind", "Node"}, {"namespace", ""}, {"names", names}}},
      {"type", "json"},
      {"variants", appendVariants("/spec/taints", gpuTaint())}});
  return b.recommendation("builtin-gpu-taints");
}

json nodePools(Builder& b) {
  b.perTask(
      1, "nodeSelector node-type", [](const TaskSpec& t) { return t.nodeType; },
      [](const std::string& type) {
        return mapEntryVariants("/spec/nodeSelector", "node-type", type);
      });
  for (const auto& d : b.s.deployments) {
    if (!d.nodeType.empty()) {
      b.patches.push_back(deploymentPatch(
          1, "nodeSelector node-type " + d.nodeType, d,
          mapEntryVariants("/spec/template/spec/nodeSelector", "node-type", d.nodeType),
          mapEntryVariants("/spec/nodeSelector", "node-type", d.nodeType)));
    }
  }
  return b.recommendation("builtin-node-pools");
}

json criticalPathPriority(Builder& b) {
  b.patches.push_back(json{
      {"step", 1},
      {"purpose", "a PriorityClass for the tasks on each DAG's critical path (queue order only)"},
      {"object",
       {{"api_version", "scheduling.k8s.io/v1"},
        {"kind", "PriorityClass"},
        {"namespace", ""},
        {"names", {kCriticalClass}}}},
      {"type", "create"},
      {"document",
       {{"apiVersion", "scheduling.k8s.io/v1"},
        {"kind", "PriorityClass"},
        {"metadata", {{"name", kCriticalClass}}},
        {"value", kCriticalValue},
        {"preemptionPolicy", "Never"},
        {"globalDefault", false}}}});
  std::set<const TaskSpec*> critical;
  for (const auto& w : b.s.workflows) {
    const auto onPath = staticCriticalPath(w, upwardRanks(w));
    for (std::size_t i = 0; i < w.tasks.size(); ++i) {
      if (onPath[i]) {
        critical.insert(&w.tasks[i]);
      }
    }
  }
  b.perTask(
      2, "priorityClassName",
      [&](const TaskSpec& t) { return critical.count(&t) ? std::string(kCriticalClass) : ""; },
      [](const std::string& name) {
        return json::array(
            {json::array({{{"op", "add"}, {"path", "/spec/priorityClassName"}, {"value", name}}})});
      });
  return b.recommendation("builtin-critical-path-priority");
}

// Kubernetes cannot place a child near a parent that has finished (the scheduler does not see
// finished pods); what it can do is prefer the zone where the DAG's pods run now.
json zoneAffinity(Builder& b) {
  for (const auto& w : b.s.workflows) {
    const json labels = workflowLabels(w);
    if (labels.is_null()) {
      b.notes.push_back("zone affinity: Argo labels no DAG, " + w.name + " is left as it is");
      continue;
    }
    const json term{{"weight", 100},
                    {"podAffinityTerm",
                     {{"labelSelector", {{"matchLabels", labels}}}, {"topologyKey", kZoneKey}}}};
    const std::string preferred =
        "/spec/affinity/podAffinity/preferredDuringSchedulingIgnoredDuringExecution";
    json variants = appendVariants(preferred, term);
    variants.push_back(json::array(
        {{{"op", "test"}, {"path", "/spec/affinity"}, {"value", nullptr}},
         {{"op", "add"},
          {"path", "/spec/affinity"},
          {"value",
           {{"podAffinity", {{"preferredDuringSchedulingIgnoredDuringExecution", {term}}}}}}}}));
    b.patches.push_back(
        taskPodPatch(1, "prefer the zone where " + w.name + "'s pods run", w.ns, labels, variants));
  }
  return b.recommendation("builtin-zone-affinity");
}

}  // namespace

json builtinRemedies(const Scenario& s) {
  Builder b{s};
  json recs = json::array();
  if (s.remedies.gpuTaints) {
    recs.push_back(gpuTaints(b));
  }
  if (s.remedies.nodePools) {
    recs.push_back(nodePools(b));
  }
  if (s.remedies.criticalPathPriority) {
    recs.push_back(criticalPathPriority(b));
  }
  if (s.remedies.parentAffinity) {
    recs.push_back(zoneAffinity(b));
  }
  return json{{"recommendations", recs}};
}

}  // namespace dagadvisor::sim
