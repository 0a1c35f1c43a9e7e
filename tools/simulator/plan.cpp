#include "plan.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "builders.h"

namespace dagadvisor::sim {
namespace {

using nlohmann::json;

// Every cluster has these: the API server creates them, so a plan that did would fail.
bool builtinNamespace(const std::string& ns) {
  return ns == "default" || ns == "kube-system" || ns == "kube-public" || ns == "kube-node-lease";
}

json namespaceObjects(const Scenario& s) {
  std::set<std::string> names;
  for (const auto& ds : s.daemonSets) {
    names.insert(ds.ns);
  }
  for (const auto& d : s.deployments) {
    names.insert(d.ns);
  }
  for (const auto& w : s.workflows) {
    names.insert(w.ns);
  }
  json out = json::array();
  for (const auto& ns : names) {
    if (!builtinNamespace(ns)) {
      out.push_back(
          json{{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}});
    }
  }
  return out;
}

json priorityClassObject(const PriorityClassSpec& c) {
  return json{{"apiVersion", "scheduling.k8s.io/v1"},   {"kind", "PriorityClass"},
              {"metadata", {{"name", c.name}}},         {"value", c.value},
              {"preemptionPolicy", c.preemptionPolicy}, {"globalDefault", c.globalDefault}};
}

json resourceList(const Resources& r) {
  json list{{"cpu", cpuQuantity(r.cpu)},
            {"memory", std::to_string(std::llround(r.memory))},
            {"pods", std::to_string(r.pods > 0 ? r.pods : 110)}};
  if (r.gpu > 0) {
    list["nvidia.com/gpu"] = std::to_string(r.gpu);
  }
  return list;
}

// The simulator's Node as kwok manages it: kwok takes the nodes annotated kwok.x-k8s.io/node
// (its default selector) and keeps the status they are created with; the labels a kubelet
// would add are added here.
json kwokNode(const Node& n) {
  json node = nodeObject(n);
  json& labels = node["metadata"]["labels"];
  for (const auto& [key, value] : {std::pair<const char*, const char*>{"kubernetes.io/os", "linux"},
                                   {"kubernetes.io/arch", "amd64"},
                                   {"type", "kwok"}}) {
    if (!labels.contains(key)) {
      labels[key] = value;
    }
  }
  node["metadata"]["annotations"]["kwok.x-k8s.io/node"] = "fake";
  node["status"] = json{{"capacity", resourceList(n.capacity)},
                        {"allocatable", resourceList(n.allocatable)},
                        {"addresses", json::array({{{"type", "InternalIP"}, {"address", n.ip}}})}};
  return node;
}

// kwok's kubelet emulation reports a pod's use from these annotations (the ClusterResourceUsage
// that testbed/build.sh takes from kwok's module), as the simulator's cAdvisor series would.
void annotateUsage(json& podMetadata, const Resources& request, double cpuUtil) {
  const ModelledUsage usage = modelledUsage(request, cpuUtil);
  json& annotations = podMetadata["annotations"];
  annotations["kwok.x-k8s.io/usage-cpu"] = std::to_string(std::llround(usage.cores * 1000)) + "m";
  annotations["kwok.x-k8s.io/usage-memory"] = std::to_string(std::llround(usage.workingSetBytes));
}

// A workload's pod template is read as the simulation reads it, so a malformed patched one
// fails here as it fails there.
void checkTemplate(const json& workload, const std::vector<PriorityClassSpec>& classes) {
  Pod scratch;
  readPodObject(json{{"metadata", json::object()}, {"spec", workload["spec"]["template"]["spec"]}},
                classes, scratch);
}

json runPlan(const Scenario& s, const Run& run, double scale, AdviceApplier& advice,
             const std::vector<PriorityClassSpec>& classes) {
  const WorkflowSpec& w = s.workflows[static_cast<std::size_t>(run.workflow)];
  json tasks = json::array();
  for (std::size_t i = 0; i < w.tasks.size(); ++i) {
    const TaskSpec& t = w.tasks[i];
    TaskPod made = engineTaskPod(s, run, static_cast<int>(i), run.arrival, advice);
    readPodObject(made.object, classes, made.pod);  // fails as the simulation would
    made.object["metadata"].erase("uid");           // the API server gives it one
    annotateUsage(made.object["metadata"], made.pod.request, made.pod.cpuUtil);
    tasks.push_back(json{{"id", t.id},
                         {"parents", t.parents},
                         {"run_seconds", run.baseRuntime[i] * scale},
                         {"output_gb", t.outputGb},
                         {"pod", std::move(made.object)}});
  }
  return json{{"name", run.name},
              {"namespace", run.ns},
              {"engine", engineName(run.engine)},
              {"workflow", w.name},
              {"arrival_seconds", (run.arrival - s.output.windowStart) * scale},
              {"reaction_seconds", engineReactionSeconds(run.engine)},
              {"tasks", std::move(tasks)}};
}

}  // namespace

json buildPlan(const Scenario& s, const Advice& advice, double scale) {
  // In the simulation's order: the Nodes, the PriorityClasses, the workloads, the task pods.
  AdviceApplier applier(advice);
  std::vector<PriorityClassSpec> classes = clusterPriorityClasses(s);
  const std::vector<Node> nodes = buildNodes(s, applier);
  applier.createPriorityClasses(classes);

  json objects = namespaceObjects(s);
  for (const auto& c : classes) {
    if (c.name.rfind("system-", 0) != 0) {  // the API server's own
      objects.push_back(priorityClassObject(c));
    }
  }
  for (const Node& n : nodes) {
    objects.push_back(kwokNode(n));
  }
  for (std::size_t i = 0; i < s.daemonSets.size(); ++i) {
    objects.push_back(daemonSetObject(s, i, applier));
    checkTemplate(objects.back(), classes);
    annotateUsage(objects.back()["spec"]["template"]["metadata"], s.daemonSets[i].request,
                  s.daemonSets[i].cpuUtil);
  }
  for (std::size_t i = 0; i < s.deployments.size(); ++i) {
    objects.push_back(deploymentObject(s, i, applier));
    checkTemplate(objects.back(), classes);
    annotateUsage(objects.back()["spec"]["template"]["metadata"], s.deployments[i].request,
                  s.deployments[i].cpuUtil);
  }

  std::vector<Run> runs = arrivingRuns(s);
  std::stable_sort(runs.begin(), runs.end(),
                   [](const Run& a, const Run& b) { return a.arrival < b.arrival; });
  json runPlans = json::array();
  for (const Run& run : runs) {
    runPlans.push_back(runPlan(s, run, scale, applier, classes));
  }
  return json{{"scenario", s.name},
              {"seed", s.seed},
              {"time_scale", scale},
              {"changes", advice.source},
              {"applied_patches", applier.report()},
              {"objects", std::move(objects)},
              {"runs", std::move(runPlans)}};
}

}  // namespace dagadvisor::sim
