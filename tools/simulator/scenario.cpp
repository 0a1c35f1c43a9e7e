#include "scenario.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>
#include <stdexcept>

namespace dagadvisor::sim {
namespace {

// Field errors travel as this exception inside the file only; loadScenario turns it into text.
struct FieldError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

[[noreturn]] void fail(const std::string& field, const std::string& why) {
  throw FieldError(field + ": " + why);
}

double number(const YAML::Node& node, const std::string& field, double fallback) {
  if (!node) {
    return fallback;
  }
  try {
    return node.as<double>();
  } catch (const YAML::Exception&) {
    fail(field, "expected a number");
  }
}

std::string text(const YAML::Node& node, const std::string& field, const std::string& fallback) {
  if (!node) {
    return fallback;
  }
  if (!node.IsScalar()) {
    fail(field, "expected a string");
  }
  return node.as<std::string>();
}

bool flag(const YAML::Node& node, const std::string& field, bool fallback) {
  if (!node) {
    return fallback;
  }
  try {
    return node.as<bool>();
  } catch (const YAML::Exception&) {
    fail(field, "expected true or false");
  }
}

double quantity(const YAML::Node& node, const std::string& field, double fallback) {
  if (!node) {
    return fallback;
  }
  auto value = parseQuantity(text(node, field, ""));
  if (!value || *value < 0) {
    fail(field, "expected a non-negative quantity such as 500m, 4Gi or 2");
  }
  return *value;
}

Resources resources(const YAML::Node& node, const std::string& field) {
  Resources r;
  r.cpu = quantity(node["cpu"], field + ".cpu", 0);
  r.memory = quantity(node["memory"], field + ".memory", 0);
  r.gpu = static_cast<int>(number(node["gpu"], field + ".gpu", 0));
  r.pods = static_cast<int>(number(node["pods"], field + ".pods", 110));
  return r;
}

std::vector<std::string> strings(const YAML::Node& node, const std::string& field) {
  std::vector<std::string> out;
  if (!node) {
    return out;
  }
  if (!node.IsSequence()) {
    fail(field, "expected a list");
  }
  for (std::size_t i = 0; i < node.size(); ++i) {
    out.push_back(text(node[i], field + "[" + std::to_string(i) + "]", ""));
  }
  return out;
}

// A missing section reads as an empty map, so lookups inside it fall back to the defaults.
YAML::Node section(const YAML::Node& parent, const char* key) {
  YAML::Node child = parent[key];
  if (!child) {
    return YAML::Node(YAML::NodeType::Map);
  }
  if (!child.IsMap()) {
    fail(key, "expected a mapping");
  }
  return child;
}

template <typename T, typename F>
std::vector<T> list(const YAML::Node& node, const std::string& field, F parseOne) {
  std::vector<T> out;
  if (!node) {
    return out;
  }
  if (!node.IsSequence()) {
    fail(field, "expected a list");
  }
  for (std::size_t i = 0; i < node.size(); ++i) {
    out.push_back(parseOne(node[i], field + "[" + std::to_string(i) + "]"));
  }
  return out;
}

// YAML to JSON for the Kubernetes-shaped fields: plain scalars that read as integers or booleans
// become numbers and booleans, quoted ones stay strings.
nlohmann::json toJson(const YAML::Node& node) {
  if (node.IsMap()) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& kv : node) {
      out[kv.first.as<std::string>()] = toJson(kv.second);
    }
    return out;
  }
  if (node.IsSequence()) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& item : node) {
      out.push_back(toJson(item));
    }
    return out;
  }
  if (!node.IsScalar()) {
    return nullptr;
  }
  const std::string value = node.as<std::string>();
  if (node.Tag() == "?") {
    if (value == "true" || value == "false") {
      return value == "true";
    }
    if (value == "null" || value == "~") {
      return nullptr;
    }
    char* end = nullptr;
    long long integer = std::strtoll(value.c_str(), &end, 10);
    if (!value.empty() && *end == '\0') {
      return integer;
    }
  }
  return value;
}

// tolerations, node_selector, affinity and priority_class of a workload, as Pod spec fields;
// checked here so a scenario with a misshapen field fails to load, naming it.
PodSpecFields scheduling(const YAML::Node& node, const std::string& field) {
  PodSpecFields out = nlohmann::json::object();
  const std::pair<const char*, const char*> kFields[] = {{"tolerations", "tolerations"},
                                                         {"node_selector", "nodeSelector"},
                                                         {"affinity", "affinity"},
                                                         {"priority_class", "priorityClassName"}};
  for (const auto& [yamlKey, specKey] : kFields) {
    if (node[yamlKey]) {
      out[specKey] = toJson(node[yamlKey]);
    }
  }
  try {
    (void)schedulingSpecOf(out);
  } catch (const std::exception& e) {
    fail(field, e.what());
  }
  return out;
}

PriorityClassSpec priorityClass(const YAML::Node& node, const std::string& field) {
  PriorityClassSpec p;
  p.name = text(node["name"], field + ".name", "");
  p.value = static_cast<int>(number(node["value"], field + ".value", 0));
  p.preemptionPolicy =
      text(node["preemption_policy"], field + ".preemption_policy", p.preemptionPolicy);
  p.globalDefault = flag(node["global_default"], field + ".global_default", false);
  if (p.name.empty()) {
    fail(field + ".name", "must not be empty");
  }
  if (p.preemptionPolicy != "PreemptLowerPriority" && p.preemptionPolicy != "Never") {
    fail(field + ".preemption_policy", "expected PreemptLowerPriority or Never");
  }
  return p;
}

Taint taint(const YAML::Node& node, const std::string& field) {
  Taint t{text(node["key"], field + ".key", ""), text(node["value"], field + ".value", ""),
          text(node["effect"], field + ".effect", "NoSchedule")};
  if (t.key.empty()) {
    fail(field + ".key", "must not be empty");
  }
  return t;
}

NodePool nodePool(const YAML::Node& node, const std::string& field) {
  NodePool p;
  p.name = text(node["name"], field + ".name", "");
  p.count = static_cast<int>(number(node["count"], field + ".count", 0));
  p.nodeType = text(node["node_type"], field + ".node_type", "");
  p.accelerator = text(node["accelerator"], field + ".accelerator", "");
  p.gpuModel = text(node["gpu_model"], field + ".gpu_model", p.gpuModel);
  p.capacity = resources(node, field);
  p.systemReservedCpu =
      quantity(node["system_reserved_cpu"], field + ".system_reserved_cpu", p.systemReservedCpu);
  p.systemReservedMemory =
      number(node["system_reserved_memory_fraction"], field + ".system_reserved_memory_fraction",
             p.systemReservedMemory);
  p.taints = list<Taint>(node["taints"], field + ".taints", taint);
  if (p.name.empty() || p.count < 0 || p.capacity.cpu <= 0 || p.capacity.memory <= 0) {
    fail(field, "needs a name, count >= 0 and positive cpu and memory");
  }
  return p;
}

DaemonSetSpec daemonSet(const YAML::Node& node, const std::string& field) {
  DaemonSetSpec d{text(node["name"], field + ".name", ""),
                  text(node["namespace"], field + ".namespace", "kube-system"),
                  resources(node, field), number(node["cpu_util"], field + ".cpu_util", 0.3),
                  scheduling(node, field)};
  if (d.name.empty()) {
    fail(field + ".name", "must not be empty");
  }
  return d;
}

DeploymentSpec deployment(const YAML::Node& node, const std::string& field) {
  DeploymentSpec d;
  d.name = text(node["name"], field + ".name", "");
  d.ns = text(node["namespace"], field + ".namespace", "default");
  d.replicas = static_cast<int>(number(node["replicas"], field + ".replicas", 1));
  d.request = resources(node, field);
  d.cpuUtil = number(node["cpu_util"], field + ".cpu_util", 0.3);
  d.nodeType = text(node["node_type"], field + ".node_type", "");
  d.scheduling = scheduling(node, field);
  if (d.name.empty() || d.replicas < 0) {
    fail(field, "needs a name and replicas >= 0");
  }
  return d;
}

TaskSpec task(const YAML::Node& node, const std::string& field) {
  TaskSpec t;
  t.id = text(node["id"], field + ".id", "");
  t.parents = strings(node["parents"], field + ".parents");
  t.request = resources(node, field);
  t.runtime.median = number(node["runtime"], field + ".runtime", 60);
  t.runtime.sigma = number(node["runtime_sigma"], field + ".runtime_sigma", 0.1);
  t.cpuUtil = number(node["cpu_util"], field + ".cpu_util", 0.8);
  t.gpuUtil = number(node["gpu_util"], field + ".gpu_util", 0.9);
  t.nodeType = text(node["node_type"], field + ".node_type", "");
  t.outputGb = number(node["output_gb"], field + ".output_gb", 1);
  t.scheduling = scheduling(node, field);
  if (t.id.empty() || t.runtime.median <= 0) {
    fail(field, "needs an id and a positive runtime");
  }
  return t;
}

Engine engine(const std::string& name, const std::string& field) {
  static const std::map<std::string, Engine> kEngines{{"seed", Engine::kSeed},
                                                      {"argo", Engine::kArgo},
                                                      {"airflow", Engine::kAirflow},
                                                      {"tekton", Engine::kTekton}};
  auto it = kEngines.find(name);
  if (it == kEngines.end()) {
    fail(field, "unknown engine '" + name + "' (seed, argo, airflow, tekton)");
  }
  return it->second;
}

// Rejects unknown parents, duplicate ids and cycles, so the simulation can trust the DAG.
void checkDag(const WorkflowSpec& w, const std::string& field) {
  std::map<std::string, const TaskSpec*> byId;
  for (const auto& t : w.tasks) {
    if (!byId.emplace(t.id, &t).second) {
      fail(field + ".tasks", "duplicate task id '" + t.id + "'");
    }
  }
  for (const auto& t : w.tasks) {
    for (const auto& p : t.parents) {
      if (!byId.count(p)) {
        fail(field + ".tasks", "task '" + t.id + "' has unknown parent '" + p + "'");
      }
    }
  }
  std::set<std::string> done;
  while (done.size() < w.tasks.size()) {
    std::size_t before = done.size();
    for (const auto& t : w.tasks) {
      bool ready = !done.count(t.id);
      for (const auto& p : t.parents) {
        ready = ready && done.count(p);
      }
      if (ready) {
        done.insert(t.id);
      }
    }
    if (done.size() == before) {
      fail(field + ".tasks", "the dependencies form a cycle");
    }
  }
}

// `tasks_from: <earlier workflow>` reuses that workflow's tasks (yaml-cpp has no `<<` merge).
WorkflowSpec workflow(const YAML::Node& node, const std::string& field,
                      const std::vector<WorkflowSpec>& earlier) {
  WorkflowSpec w;
  w.name = text(node["name"], field + ".name", "");
  w.ns = text(node["namespace"], field + ".namespace", "default");
  w.engine = engine(text(node["engine"], field + ".engine", "seed"), field + ".engine");
  const YAML::Node a = section(node, "arrival");
  w.arrival.first = number(a["first"], field + ".arrival.first", 0);
  w.arrival.every = number(a["every"], field + ".arrival.every", 86400);
  w.arrival.count = static_cast<int>(number(a["count"], field + ".arrival.count", 1));
  w.podGcSeconds = number(node["pod_gc_seconds"], field + ".pod_gc_seconds", -1);
  w.headline = flag(node["headline"], field + ".headline", true);
  w.tasks = list<TaskSpec>(node["tasks"], field + ".tasks", task);
  if (node["tasks_from"]) {
    std::string from = text(node["tasks_from"], field + ".tasks_from", "");
    auto it = std::find_if(earlier.begin(), earlier.end(),
                           [&](const WorkflowSpec& e) { return e.name == from; });
    if (it == earlier.end()) {
      fail(field + ".tasks_from", "no earlier workflow named '" + from + "'");
    }
    w.tasks = it->tasks;
  }
  if (w.name.empty() || w.tasks.empty() || w.arrival.count < 0) {
    fail(field, "needs a name, tasks and arrival.count >= 0");
  }
  checkDag(w, field);
  return w;
}

LatencySpike spike(const YAML::Node& node, const std::string& field) {
  return LatencySpike{number(node["at"], field + ".at", 0),
                      number(node["duration"], field + ".duration", 0),
                      number(node["extra_seconds"], field + ".extra_seconds", 0)};
}

void readSections(const YAML::Node& root, Scenario& s) {
  s.name = text(root["name"], "name", "");
  s.description = text(root["description"], "description", "");
  s.plantedProblem = text(root["planted_problem"], "planted_problem", "");
  if (root["analysis_at"]) {
    s.analysisAt = number(root["analysis_at"], "analysis_at", 0);
  }
  s.seed = static_cast<std::uint64_t>(number(root["seed"], "seed", 1));
  s.start = static_cast<std::int64_t>(number(root["start"], "start", 1795824000));
  s.declaredStart = s.start;
  s.duration = number(root["duration"], "duration", 3600);
  if (root["zones"]) {
    s.zones = strings(root["zones"], "zones");
  }
  s.nodePools = list<NodePool>(root["node_pools"], "node_pools", nodePool);
  s.daemonSets = list<DaemonSetSpec>(root["daemonsets"], "daemonsets", daemonSet);
  s.deployments = list<DeploymentSpec>(root["deployments"], "deployments", deployment);
  const YAML::Node workflows = root["workflows"];
  if (workflows && !workflows.IsSequence()) {
    fail("workflows", "expected a list");
  }
  for (std::size_t i = 0; workflows && i < workflows.size(); ++i) {
    s.workflows.push_back(
        workflow(workflows[i], "workflows[" + std::to_string(i) + "]", s.workflows));
  }
  s.priorityClasses =
      list<PriorityClassSpec>(root["priority_classes"], "priority_classes", priorityClass);
  const YAML::Node n = section(root, "network");
  s.network.sameZoneSecondsPerGb =
      number(n["same_zone_seconds_per_gb"], "network.same_zone_seconds_per_gb", 20);
  s.network.crossZoneSecondsPerGb =
      number(n["cross_zone_seconds_per_gb"], "network.cross_zone_seconds_per_gb", 90);
  const YAML::Node sc = section(root, "scheduler");
  s.scheduler.baseLatencySeconds =
      number(sc["base_latency_seconds"], "scheduler.base_latency_seconds", 0.02);
  s.scheduler.podStartupSeconds =
      number(sc["pod_startup_seconds"], "scheduler.pod_startup_seconds", 5);
  s.scheduler.legacyDurationMetric =
      flag(sc["legacy_duration_metric"], "scheduler.legacy_duration_metric", false);
  s.scheduler.spikes = list<LatencySpike>(sc["latency_spikes"], "scheduler.latency_spikes", spike);
  const YAML::Node r = section(root, "remedies");
  s.remedies.gpuTaints = flag(r["gpu_taints"], "remedies.gpu_taints", true);
  s.remedies.nodePools = flag(r["node_pools"], "remedies.node_pools", true);
  s.remedies.criticalPathPriority =
      flag(r["critical_path_priority"], "remedies.critical_path_priority", true);
  s.remedies.parentAffinity = flag(r["parent_affinity"], "remedies.parent_affinity", true);
  const YAML::Node o = section(root, "output");
  s.output.step = number(o["step"], "output.step", 30);
  s.output.refresh = number(o["refresh"], "output.refresh", 0);
  s.output.windowStart = number(o["window_start"], "output.window_start", 0);
  s.output.windowEnd = number(o["window_end"], "output.window_end", -1);
  s.output.usage = flag(o["usage"], "output.usage", true);
  s.output.usageStep = number(o["usage_step"], "output.usage_step", 0);
  s.output.nodeSelectorsMetric =
      flag(o["ksm_pod_nodeselectors"], "output.ksm_pod_nodeselectors", false);
}

void validate(const Scenario& s) {
  if (s.name.empty()) {
    fail("name", "must not be empty");
  }
  if (s.duration <= 0) {
    fail("duration", "must be positive");
  }
  if (s.zones.empty()) {
    fail("zones", "needs at least one zone");
  }
  if (s.nodePools.empty()) {
    fail("node_pools", "needs at least one pool");
  }
  if (s.output.step <= 0) {
    fail("output.step", "must be positive");
  }
  if (s.output.refresh + s.output.step > 300) {
    fail("output.refresh", "refresh + step must stay within Prometheus' 5 min lookback (300 s)");
  }
  if (s.output.usageStep < 0 || s.output.usageStep > 150) {
    fail("output.usage_step", "must be between 0 and 150 s so rate() over 5 min has samples");
  }
}

}  // namespace

std::optional<double> parseQuantity(const std::string& textValue) {
  static const std::map<std::string, double> kSuffixes{{"", 1},
                                                       {"m", 1e-3},
                                                       {"k", 1e3},
                                                       {"K", 1e3},
                                                       {"M", 1e6},
                                                       {"G", 1e9},
                                                       {"T", 1e12},
                                                       {"Ki", 1024.0},
                                                       {"Mi", 1048576.0},
                                                       {"Gi", 1073741824.0},
                                                       {"Ti", 1099511627776.0}};
  if (textValue.empty()) {
    return std::nullopt;
  }
  char* end = nullptr;
  double value = std::strtod(textValue.c_str(), &end);
  if (end == textValue.c_str()) {
    return std::nullopt;
  }
  auto it = kSuffixes.find(std::string(end));
  if (it == kSuffixes.end()) {
    return std::nullopt;
  }
  return value * it->second;
}

ScenarioOrError loadScenario(const std::string& path) {
  ScenarioOrError out;
  try {
    YAML::Node root = YAML::LoadFile(path);
    if (!root.IsMap()) {
      out.error = path + ": expected a YAML mapping at the top";
      return out;
    }
    Scenario s;
    readSections(root, s);
    validate(s);
    out.scenario = std::move(s);
  } catch (const FieldError& e) {
    out.error = path + ": " + e.what();
  } catch (const YAML::Exception& e) {
    out.error = path + ": " + e.what();
  }
  return out;
}

const char* engineName(Engine engine) {
  switch (engine) {
    case Engine::kSeed:
      return "seed";
    case Engine::kArgo:
      return "argo";
    case Engine::kAirflow:
      return "airflow";
    case Engine::kTekton:
      return "tekton";
  }
  return "seed";
}

const char* policyName(Policy policy) {
  return policy == Policy::kBaseline ? "baseline" : "remedied";
}

}  // namespace dagadvisor::sim
