#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "builders.h"
#include "rng.h"

namespace dagadvisor::sim {
namespace {

using nlohmann::json;

// Long-running objects were created days before the window, as in a real cluster.
constexpr double kDaemonSetCreated = -7 * 86400.0;
constexpr double kDeploymentCreated = -2 * 86400.0;

Resources allocatableOf(const NodePool& pool) {
  Resources a = pool.capacity;
  a.cpu = pool.capacity.cpu - pool.systemReservedCpu;
  a.memory = pool.capacity.memory * (1.0 - pool.systemReservedMemory);
  return a;
}

std::string nodeIp(int poolIndex, int index) {
  return "10." + std::to_string(poolIndex + 1) + "." + std::to_string(index / 250) + "." +
         std::to_string(index % 250 + 1);
}

// What the API server adds to every pod (DefaultTolerationSeconds admission) and what the
// DaemonSet controller adds to its pods, as the real scrape shows them.
const json& defaultTolerations(bool daemonSet) {
  static const json kPod = json::parse(R"([
    {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
    {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}])");
  static const json kDaemonSet = json::parse(R"([
    {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute"},
    {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute"},
    {"key": "node.kubernetes.io/disk-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/memory-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/pid-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"}])");
  return daemonSet ? kDaemonSet : kPod;
}

}  // namespace

void admitPodSpec(json& spec, bool daemonSet) {
  json& tolerations = spec["tolerations"];
  if (!tolerations.is_array()) {
    tolerations = json::array();
  }
  for (const auto& t : defaultTolerations(daemonSet)) {
    bool present = std::any_of(tolerations.begin(), tolerations.end(), [&](const json& have) {
      return have.value("key", "") == t["key"] && have.value("effect", "") == t["effect"];
    });
    if (!present) {
      tolerations.push_back(t);
    }
  }
}

std::string cpuQuantity(double cores) {
  const long long millis = std::llround(cores * 1000);
  return millis % 1000 == 0 ? std::to_string(millis / 1000) : std::to_string(millis) + "m";
}

std::string ownerApiVersion(const std::string& kind) {
  if (kind == "Workflow") {
    return "argoproj.io/v1alpha1";
  }
  if (kind == "TaskRun") {
    return "tekton.dev/v1";
  }
  return "apps/v1";  // DaemonSet, ReplicaSet
}

namespace {

// One container requesting `r`, memory as whole bytes. GPUs, an extended resource, cannot be
// overcommitted: the API server rejects a request without a limit equal to it.
json containerOf(const std::string& name, const Resources& r) {
  json resources{
      {"requests",
       {{"cpu", cpuQuantity(r.cpu)}, {"memory", std::to_string(std::llround(r.memory))}}}};
  if (r.gpu > 0) {
    resources["requests"]["nvidia.com/gpu"] = std::to_string(r.gpu);
    resources["limits"]["nvidia.com/gpu"] = std::to_string(r.gpu);
  }
  return json{{"name", name}, {"image", kContainerImage}, {"resources", resources}};
}

json labelsJson(const KeyValues& labels) {
  json out = json::object();
  for (const auto& [k, v] : labels) {
    out[k] = v;
  }
  return out;
}

// A DaemonSet or Deployment as the API holds it, its pod template from the scenario. The
// controllers add their hash labels to the pods, not to the template.
json workloadObject(const char* kind, const std::string& name, const std::string& ns,
                    const KeyValues& selector, const Resources& request,
                    const PodSpecFields& scheduling) {
  json spec = scheduling;
  spec["containers"] = json::array({containerOf(name, request)});
  return json{{"apiVersion", "apps/v1"},
              {"kind", kind},
              {"metadata", {{"name", name}, {"namespace", ns}, {"labels", labelsJson(selector)}}},
              {"spec",
               {{"selector", {{"matchLabels", labelsJson(selector)}}},
                {"template", {{"metadata", {{"labels", labelsJson(selector)}}}, {"spec", spec}}}}}};
}

KeyValues daemonSetSelector(const DaemonSetSpec& ds) {
  return {{"app.kubernetes.io/name", ds.name}};
}

KeyValues deploymentSelector(const DeploymentSpec& d) {
  return {{"app", d.name}};
}

std::string templateHash(const Scenario& s, std::size_t deployment) {
  return nameSuffix(hashKeys(s.seed, 21, static_cast<std::uint64_t>(deployment)), 10);
}

}  // namespace

json nodeObject(const Node& n) {
  json taints = json::array();
  for (const auto& t : n.taints) {
    json taint{{"key", t.key}, {"effect", t.effect}};
    if (!t.value.empty()) {
      taint["value"] = t.value;
    }
    taints.push_back(taint);
  }
  json node{{"apiVersion", "v1"},
            {"kind", "Node"},
            {"metadata", {{"name", n.name}, {"labels", labelsJson(n.labels)}}},
            {"spec", json::object()}};
  if (!taints.empty()) {
    node["spec"]["taints"] = taints;
  }
  return node;
}

json daemonSetObject(const Scenario& s, std::size_t index, AdviceApplier& advice) {
  const DaemonSetSpec& ds = s.daemonSets[index];
  json object =
      workloadObject("DaemonSet", ds.name, ds.ns, daemonSetSelector(ds), ds.request, ds.scheduling);
  advice.patchWorkload(object);
  return object;
}

json deploymentObject(const Scenario& s, std::size_t index, AdviceApplier& advice) {
  const DeploymentSpec& d = s.deployments[index];
  json object =
      workloadObject("Deployment", d.name, d.ns, deploymentSelector(d), d.request, d.scheduling);
  object["spec"]["replicas"] = d.replicas;
  advice.patchWorkload(object);
  return object;
}

namespace {

// The patched Node back into the simulator's node: labels (the known ones keep their order) and
// taints. Zone and node-type follow their labels.
void readNodeObject(const json& node, Node& n) {
  KeyValues labels;
  const json labelMap = node["metadata"].value("labels", json::object());
  for (const auto& [k, v] : labelMap.items()) {
    labels.emplace_back(k, v.is_string() ? v.get<std::string>() : v.dump());
  }
  n.labels = std::move(labels);
  n.taints.clear();
  for (const auto& t : node["spec"].value("taints", json::array())) {
    n.taints.push_back({t.value("key", ""), t.value("value", ""), t.value("effect", "")});
  }
  if (const std::string* zone = labelValue(n.labels, "topology.kubernetes.io/zone")) {
    n.zone = *zone;
  }
  if (const std::string* type = labelValue(n.labels, "node-type")) {
    n.nodeType = *type;
  }
}

// The DaemonSet controller's NodeShouldRunDaemonPod: taints (NoSchedule, NoExecute) tolerated
// and the template's nodeSelector and required node affinity matched.
bool shouldRunOn(const Pod& templatePod, const Node& node) {
  return toleratesHardTaints(templatePod.scheduling.tolerations, node.taints) &&
         matchesRequiredNodeAffinity(templatePod.scheduling, node.labels);
}

void daemonSetPods(const Scenario& s, std::size_t dsIndex, AdviceApplier& advice,
                   const std::vector<PriorityClassSpec>& classes, const std::vector<Node>& nodes,
                   std::vector<Pod>& out) {
  const DaemonSetSpec& ds = s.daemonSets[dsIndex];
  KeyValues labels = daemonSetSelector(ds);
  labels.emplace_back("controller-revision-hash", "7d9f8c6b5");
  json templateSpec = daemonSetObject(s, dsIndex, advice)["spec"]["template"]["spec"];
  admitPodSpec(templateSpec, true);
  const int di = static_cast<int>(dsIndex);
  for (std::size_t ni = 0; ni < nodes.size(); ++ni) {
    const int nodeIndex = static_cast<int>(ni);
    Pod p;
    p.kind = PodKind::kDaemonSet;
    p.workload = di;
    p.ns = ds.ns;
    p.name = ds.name + "-" + nameSuffix(hashKeys(s.seed, 11, di, nodeIndex), 5);
    p.uid = makeUid(hashKeys(s.seed, 12, di, nodeIndex));
    p.container = ds.name;
    p.ownerKind = "DaemonSet";
    p.ownerName = ds.name;
    p.labels = labels;
    p.cpuUtil = ds.cpuUtil;
    p.created = kDaemonSetCreated + nodeIndex;
    readPodObject(json{{"metadata", json::object()}, {"spec", templateSpec}}, classes, p);
    if (!shouldRunOn(p, nodes[ni])) {
      continue;
    }
    p.pinnedNode = nodes[ni].name;
    p.request.gpu = 0;
    out.push_back(std::move(p));
  }
}

void deploymentPods(const Scenario& s, std::size_t dIndex, AdviceApplier& advice,
                    const std::vector<PriorityClassSpec>& classes, double& created,
                    std::vector<Pod>& out) {
  const DeploymentSpec& d = s.deployments[dIndex];
  const int di = static_cast<int>(dIndex);
  const std::string hash = templateHash(s, dIndex);
  KeyValues labels = deploymentSelector(d);
  labels.emplace_back("pod-template-hash", hash);
  json templateSpec = deploymentObject(s, dIndex, advice)["spec"]["template"]["spec"];
  admitPodSpec(templateSpec, false);
  for (int r = 0; r < d.replicas; ++r) {
    Pod p;
    p.kind = PodKind::kDeployment;
    p.workload = di;
    p.ns = d.ns;
    p.name = d.name + "-" + hash + "-" + nameSuffix(hashKeys(s.seed, 22, di, r), 5);
    p.uid = makeUid(hashKeys(s.seed, 23, di, r));
    p.container = d.name;
    p.ownerKind = "ReplicaSet";
    p.ownerName = d.name + "-" + hash;
    p.labels = labels;
    p.cpuUtil = d.cpuUtil;
    p.created = created;
    created += 0.5;
    readPodObject(json{{"metadata", json::object()}, {"spec", templateSpec}}, classes, p);
    out.push_back(std::move(p));
  }
}

}  // namespace

std::string nameSuffix(std::uint64_t key, int length) {
  static constexpr char kAlphabet[] = "bcdfghjklmnpqrstvwxz2456789";
  Rng rng(key);
  std::string out;
  for (int i = 0; i < length; ++i) {
    out += kAlphabet[rng.below(sizeof kAlphabet - 1)];
  }
  return out;
}

std::string makeUid(std::uint64_t key) {
  Rng rng(key);
  char buf[40];
  std::uint64_t a = rng.next();
  std::uint64_t b = rng.next();
  std::snprintf(buf, sizeof buf, "%08x-%04x-4%03x-%04x-%012llx", static_cast<unsigned>(a >> 32),
                static_cast<unsigned>((a >> 16) & 0xffff), static_cast<unsigned>(a & 0xfff),
                static_cast<unsigned>(0x8000 | (b >> 52 & 0x3fff)),
                static_cast<unsigned long long>(b & 0xffffffffffffULL));
  return buf;
}

std::string nodeName(const NodePool& pool, int index) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "-%03d", index);
  return pool.name + buf;
}

std::vector<PriorityClassSpec> clusterPriorityClasses(const Scenario& s) {
  std::vector<PriorityClassSpec> classes{
      {"system-cluster-critical", 2000000000, "PreemptLowerPriority", false},
      {"system-node-critical", 2000001000, "PreemptLowerPriority", false}};
  classes.insert(classes.end(), s.priorityClasses.begin(), s.priorityClasses.end());
  return classes;
}

std::vector<Node> buildNodes(const Scenario& s, AdviceApplier& advice) {
  std::vector<Node> nodes;
  for (std::size_t pi = 0; pi < s.nodePools.size(); ++pi) {
    const NodePool& pool = s.nodePools[pi];
    for (int i = 0; i < pool.count; ++i) {
      Node n;
      n.name = nodeName(pool, i);
      n.pool = pool.name;
      n.nodeType = pool.nodeType;
      n.accelerator = pool.accelerator;
      n.zone = s.zones[static_cast<std::size_t>(i) % s.zones.size()];
      n.ip = nodeIp(static_cast<int>(pi), i);
      n.gpuModel = pool.gpuModel;
      n.capacity = pool.capacity;
      n.allocatable = allocatableOf(pool);
      n.taints = pool.taints;
      n.labels = {{"kubernetes.io/hostname", n.name},
                  {"node-type", n.nodeType},
                  {"topology.kubernetes.io/zone", n.zone}};
      if (!n.accelerator.empty()) {
        n.labels.emplace_back("accelerator", n.accelerator);
      }
      json object = nodeObject(n);
      advice.patchNode(object);
      readNodeObject(object, n);
      n.gpuOwner.assign(static_cast<std::size_t>(pool.capacity.gpu), -1);
      nodes.push_back(std::move(n));
    }
  }
  return nodes;
}

std::vector<Pod> buildLongRunningPods(const Scenario& s, AdviceApplier& advice,
                                      const std::vector<PriorityClassSpec>& classes,
                                      const std::vector<Node>& nodes) {
  std::vector<Pod> pods;
  for (std::size_t di = 0; di < s.daemonSets.size(); ++di) {
    daemonSetPods(s, di, advice, classes, nodes, pods);
  }
  double created = kDeploymentCreated;
  for (std::size_t di = 0; di < s.deployments.size(); ++di) {
    deploymentPods(s, di, advice, classes, created, pods);
  }
  return pods;
}

Pod replacementOf(const Pod& evicted, int generation, double created) {
  Pod p = evicted;
  const std::uint64_t key = hashKeys(hashText(evicted.uid), static_cast<std::uint64_t>(generation));
  p.uid = makeUid(key);
  p.name = evicted.kind == PodKind::kTask ? evicted.name + "-retry" + std::to_string(generation)
                                          : evicted.ownerName + "-" + nameSuffix(key, 5);
  p.created = created;
  p.scheduled = p.started = p.finished = p.deleted = p.unschedulableSince = kNever;
  p.unschedulablePlugin.clear();
  p.lastAttempt = -kNever;
  p.attempts = 0;
  p.node = -1;
  p.gpus.clear();
  p.transferSeconds = 0;
  p.fetches.clear();
  p.evicted = false;
  return p;
}

void readPodObject(const json& pod, const std::vector<PriorityClassSpec>& classes, Pod& out) {
  const json& spec = pod.at("spec");
  out.scheduling = schedulingSpecOf(spec);
  mergeLabelKeys(out.scheduling, out.labels);  // the pod's labels are set before its spec is read
  const Requests r = requestsOf(spec);
  out.request.cpu = r.cpu;
  out.request.memory = r.memory;
  out.request.gpu = r.gpu;
  out.request.pods = 1;
  // Priority admission: the named class, else the global default, else 0.
  out.priorityClass = out.scheduling.priorityClassName;
  out.priority = 0;
  out.preemptionPolicy = "PreemptLowerPriority";
  const PriorityClassSpec* chosen = nullptr;
  for (const auto& c : classes) {
    if (out.priorityClass.empty() ? c.globalDefault : c.name == out.priorityClass) {
      chosen = &c;
    }
  }
  if (chosen == nullptr && !out.priorityClass.empty()) {
    throw std::invalid_argument("priorityClassName: no PriorityClass named '" + out.priorityClass +
                                "'");
  }
  if (chosen != nullptr) {
    out.priority = chosen->value;
    out.preemptionPolicy = chosen->preemptionPolicy;
    out.priorityClass = chosen->name;
  }
}

json podObject(const Pod& p, const json& specFields) {
  json spec = specFields;
  spec["containers"] = json::array({containerOf(p.container, p.request)});
  json metadata{{"name", p.name},
                {"namespace", p.ns},
                {"uid", p.uid},
                {"labels", labelsJson(p.labels)},
                {"annotations", labelsJson(p.annotations)}};
  if (!p.ownerKind.empty()) {  // the simulator gives owners no uid
    metadata["ownerReferences"] = json::array({json{{"apiVersion", ownerApiVersion(p.ownerKind)},
                                                    {"kind", p.ownerKind},
                                                    {"name", p.ownerName},
                                                    {"controller", true}}});
  }
  return json{{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", metadata}, {"spec", spec}};
}

}  // namespace dagadvisor::sim
