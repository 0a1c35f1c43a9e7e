// The simulator's Kubernetes semantics: taints and tolerations, node selectors and affinity, pod
// affinity against the pods the scheduler sees (bound, not finished), and preemption.
#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "builders.h"
#include "report.h"
#include "scheduler.h"
#include "sim_test_support.h"

using namespace dagadvisor::sim;
using namespace dagadvisor::sim::test;
using nlohmann::json;

namespace {

SchedulingSpec specOf(const char* podSpecJson) {
  return schedulingSpecOf(json::parse(podSpecJson));
}

Node nodeIn(const std::string& name, const std::string& zone) {
  Node n;
  n.name = name;
  n.zone = zone;
  n.labels = {{"kubernetes.io/hostname", name}, {"topology.kubernetes.io/zone", zone}};
  n.allocatable = Resources{16, 64e9, 0, 110};
  return n;
}

Pod podWith(int id, const std::string& app, const char* podSpecJson = "{}") {
  Pod p;
  p.id = id;
  p.ns = "default";
  p.name = app + "-" + std::to_string(id);
  p.labels = {{"app", app}};
  p.request = Resources{1, 1e9, 0, 1};
  p.scheduling = specOf(podSpecJson);
  return p;
}

}  // namespace

TEST_CASE("a toleration matches taints as the Kubernetes API does", "[simulator][kube]") {
  const Taint gpu{"nvidia.com/gpu", "present", "NoSchedule"};
  CHECK(toleratesTaint({"", "Exists", "", "", {}}, gpu));  // key-less Exists: every taint
  CHECK(toleratesTaint({"", "Exists", "", "NoSchedule", {}}, gpu));
  CHECK_FALSE(toleratesTaint({"", "Exists", "", "NoExecute", {}}, gpu));
  CHECK(toleratesTaint({"nvidia.com/gpu", "Exists", "", "", {}}, gpu));
  CHECK(toleratesTaint({"nvidia.com/gpu", "Equal", "present", "NoSchedule", {}}, gpu));
  CHECK_FALSE(toleratesTaint({"nvidia.com/gpu", "Equal", "absent", "NoSchedule", {}}, gpu));
  CHECK_FALSE(toleratesTaint({"dedicated", "Exists", "", "", {}}, gpu));

  const std::vector<Taint> taints{gpu, {"spot", "true", "PreferNoSchedule"}};
  CHECK_FALSE(toleratesHardTaints({}, taints));
  CHECK(toleratesHardTaints({{"nvidia.com/gpu", "Exists", "", "", {}}}, taints));
  CHECK(intolerablePreferNoSchedule({{"nvidia.com/gpu", "Exists", "", "", {}}}, taints) == 1);
  CHECK(intolerablePreferNoSchedule({{"", "Exists", "", "", {}}}, taints) == 0);
  CHECK_FALSE(toleratesHardTaints({}, {{"dedicated", "x", "NoExecute"}}));
}

TEST_CASE("nodeSelector and required node affinity filter nodes", "[simulator][kube]") {
  const KeyValues gpuNode{{"node-type", "gpu"}, {"topology.kubernetes.io/zone", "a"}};
  const KeyValues cpuNode{{"node-type", "compute"}, {"topology.kubernetes.io/zone", "b"}};
  auto required = [](const char* expressions) {
    return specOf(
        (std::string(
             R"({"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution":
        {"nodeSelectorTerms": [{"matchExpressions": )") +
         expressions + "}]}}}}")
            .c_str());
  };
  CHECK(matchesRequiredNodeAffinity(specOf(R"({"nodeSelector": {"node-type": "gpu"}})"), gpuNode));
  CHECK_FALSE(
      matchesRequiredNodeAffinity(specOf(R"({"nodeSelector": {"node-type": "gpu"}})"), cpuNode));
  const SchedulingSpec in =
      required(R"([{"key": "node-type", "operator": "In", "values": ["gpu"]}])");
  CHECK(matchesRequiredNodeAffinity(in, gpuNode));
  CHECK_FALSE(matchesRequiredNodeAffinity(in, cpuNode));
  const SchedulingSpec notIn =
      required(R"([{"key": "node-type", "operator": "NotIn", "values": ["gpu"]}])");
  CHECK_FALSE(matchesRequiredNodeAffinity(notIn, gpuNode));
  CHECK(matchesRequiredNodeAffinity(notIn, cpuNode));
  CHECK(matchesRequiredNodeAffinity(notIn, {}));  // NotIn holds where the label is absent
  const SchedulingSpec exists = required(R"([{"key": "accelerator", "operator": "Exists"}])");
  CHECK_FALSE(matchesRequiredNodeAffinity(exists, gpuNode));
  CHECK(matchesRequiredNodeAffinity(exists, {{"accelerator", "nvidia"}}));
  const SchedulingSpec absent = required(R"([{"key": "accelerator", "operator": "DoesNotExist"}])");
  CHECK(matchesRequiredNodeAffinity(absent, gpuNode));
  CHECK_FALSE(matchesRequiredNodeAffinity(absent, {{"accelerator", "nvidia"}}));
  CHECK_THROWS_AS(required(R"([{"key": "x", "operator": "Near"}])"), std::invalid_argument);
}

TEST_CASE("pod affinity sees the running pods only, never the finished ones",
          "[simulator][kube][scheduler]") {
  std::vector<Node> nodes{nodeIn("a-0", "zone-a"), nodeIn("b-0", "zone-b")};
  std::vector<Pod> pods{podWith(0, "parent")};
  Scheduler scheduler(nodes, pods, 1);
  scheduler.bind(pods[0], 1);  // the parent runs in zone-b

  const char* preferred =
      R"({"affinity": {"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution":
      [{"weight": 100, "podAffinityTerm": {"labelSelector": {"matchLabels": {"app": "parent"}},
        "topologyKey": "topology.kubernetes.io/zone"}}]}}})";
  const char* required =
      R"({"affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution":
      [{"labelSelector": {"matchLabels": {"app": "parent"}}, "topologyKey": "topology.kubernetes.io/zone"}]}}})";
  const Pod near = podWith(1, "child", preferred);
  const Pod must = podWith(2, "child", required);
  const Pod plain = podWith(3, "child");
  CHECK(scheduler.place(plain) == 0);  // the parent's 1 core makes zone-b the busier
  CHECK(scheduler.place(near) == 1);
  CHECK(scheduler.place(must) == 1);

  scheduler.release(pods[0]);  // the parent finished: the scheduler forgets it
  CHECK(scheduler.place(near) == 0);
  CHECK(scheduler.place(must) == -1);  // nothing running matches, and it does not match itself
  CHECK(scheduler.rejectingPlugin(must) == "InterPodAffinity");
}

// As the API server does at creation, a term's label keys take the pod's own values: the
// advice's "tasks of my run" term (an empty selector, matchLabelKeys: [run]) selects one run.
TEST_CASE("matchLabelKeys and mismatchLabelKeys take their values from the pod's labels",
          "[simulator][kube][scheduler]") {
  std::vector<Node> nodes{nodeIn("a-0", "zone-a"), nodeIn("b-0", "zone-b")};
  auto taskOf = [](int id, const KeyValues& labels, const char* podSpecJson) {
    Pod p = podWith(id, "task");
    p.labels = labels;
    readPodObject(json{{"metadata", json::object()}, {"spec", json::parse(podSpecJson)}}, {}, p);
    return p;
  };
  std::vector<Pod> pods{taskOf(0, {{"run", "r1"}}, "{}"), taskOf(1, {{"run", "r2"}}, "{}")};
  Scheduler scheduler(nodes, pods, 1);
  scheduler.bind(pods[0], 1);  // run r1 runs in zone-b
  scheduler.bind(pods[1], 0);  // run r2 in zone-a

  const char* ownRun =
      R"({"affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution":
      [{"labelSelector": {"matchLabels": {}}, "matchLabelKeys": ["run"],
        "topologyKey": "topology.kubernetes.io/zone"}]}}})";
  CHECK(scheduler.place(taskOf(2, {{"run", "r1"}}, ownRun)) == 1);
  CHECK(scheduler.place(taskOf(3, {{"run", "r2"}}, ownRun)) == 0);
  // A key the pod lacks is ignored: the empty selector then matches every pod, in both zones.
  const Pod unlabelled = taskOf(4, {}, ownRun);
  CHECK(unlabelled.scheduling.requiredAffinity.at(0).selector.matchExpressions.empty());

  const char* awayFromOtherRuns =
      R"({"affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution":
      [{"labelSelector": {"matchLabels": {}}, "mismatchLabelKeys": ["run"],
        "topologyKey": "topology.kubernetes.io/zone"}]}}})";
  CHECK(scheduler.place(taskOf(5, {{"run", "r1"}}, awayFromOtherRuns)) == 1);
  CHECK(scheduler.place(taskOf(6, {{"run", "r3"}}, awayFromOtherRuns)) == -1);

  // The API server rejects label keys without a selector to merge them into.
  CHECK_THROWS_WITH(
      taskOf(7, {{"run", "r1"}},
             R"({"affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution":
             [{"matchLabelKeys": ["run"], "topologyKey": "topology.kubernetes.io/zone"}]}}})"),
      Catch::Contains("matchLabelKeys"));
}

TEST_CASE("required anti-affinity keeps pods apart, in both directions",
          "[simulator][kube][scheduler]") {
  std::vector<Node> nodes{nodeIn("a-0", "zone-a"), nodeIn("a-1", "zone-a")};
  const char* apart =
      R"({"affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution":
      [{"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": "kubernetes.io/hostname"}]}}})";
  std::vector<Pod> pods{podWith(0, "db", apart)};
  Scheduler scheduler(nodes, pods, 1);
  scheduler.bind(pods[0], 0);
  nodes[1].used = Resources{15, 0, 0, 1};  // a-1 nearly full: only anti-affinity keeps pods off a-0
  CHECK(scheduler.place(podWith(1, "db", apart)) == 1);
  CHECK(scheduler.place(podWith(2, "db")) == 1);  // the running pod's own term keeps it out
  CHECK(scheduler.place(podWith(3, "web")) == 0);
}

TEST_CASE("preemption evicts only lower priority, and only for PreemptLowerPriority",
          "[simulator][kube][scheduler]") {
  std::vector<Node> nodes{nodeIn("a-0", "zone-a")};
  nodes[0].allocatable = Resources{4, 64e9, 0, 110};
  std::vector<Pod> pods{podWith(0, "batch"), podWith(1, "batch"), podWith(2, "online")};
  pods[0].request.cpu = 2;
  pods[0].priority = 10;
  pods[1].request.cpu = 1;
  pods[1].priority = 0;
  pods[2].request.cpu = 1;
  pods[2].priority = 5000;
  Scheduler scheduler(nodes, pods, 1);
  for (auto& p : pods) {
    scheduler.bind(p, 0);
  }
  Pod urgent = podWith(3, "train");
  urgent.request.cpu = 1;
  urgent.priority = 1000;
  REQUIRE(scheduler.place(urgent) == -1);
  Preemption pre = scheduler.preemption(urgent);
  CHECK(pre.node == 0);
  CHECK(pre.victims == std::vector<int>{1});  // the fewest, least important: not the 2-core one

  urgent.request.cpu = 2;
  pre = scheduler.preemption(urgent);
  CHECK(pre.victims == std::vector<int>{0});  // one 2-core pod rather than more

  urgent.request.cpu = 4;  // only with the priority-5000 pod gone would it fit
  CHECK(scheduler.preemption(urgent).node == -1);

  urgent.request.cpu = 1;
  urgent.preemptionPolicy = "Never";
  CHECK(scheduler.preemption(urgent).node == -1);
  urgent.preemptionPolicy = "PreemptLowerPriority";
  urgent.priority = 0;  // equal priority is never preempted
  CHECK(scheduler.preemption(urgent).victims.empty());
}

namespace {

// One node full of a low-priority service; a DAG whose task has a high-priority class.
std::string preemptionScenario(const char* policy) {
  return std::string(R"(
name: preemption
zones: [z]
node_pools: [{name: n, count: 1, cpu: 8, memory: 32Gi}]
priority_classes:
  - {name: batch-low, value: 10}
  - {name: urgent, value: 100000, preemption_policy: )") +
         policy + R"(}
deployments:
  - {name: filler, namespace: online, replicas: 7, cpu: "1", memory: 1Gi, priority_class: batch-low}
workflows:
  - name: w
    namespace: ml
    tasks:
      - {id: only, cpu: 1500m, memory: 1Gi, runtime: 600, runtime_sigma: 0, priority_class: urgent}
duration: 3600
)";
}

}  // namespace

TEST_CASE("a pod of a PreemptLowerPriority class preempts: the victim's controller replaces it",
          "[simulator][kube][preemption]") {
  auto preempting = loadText(preemptionScenario("PreemptLowerPriority"));
  INFO(preempting.error);
  REQUIRE(preempting.scenario);
  History h = simulate(*preempting.scenario, Policy::kBaseline);
  CHECK(h.preemptions == 1);
  REQUIRE(h.runs.size() == 1);
  CHECK(h.runs[0].finished != kNever);
  int evicted = 0;
  int fillers = 0;
  for (const auto& p : h.pods) {
    evicted += p.evicted ? 1 : 0;
    fillers += p.ownerName.rfind("filler-", 0) == 0 ? 1 : 0;
    if (p.evicted) {
      CHECK(p.priority == 10);
      CHECK(p.finished != kNever);
    }
  }
  CHECK(evicted == 1);
  CHECK(fillers == 8);  // 7 replicas and the replacement of the evicted one
  // kube-state-metrics shows the victim Failed from its eviction on.
  bool failed = false;
  for (const auto& sample : parseAll(renderOpenMetrics(h))) {
    failed = failed || (sample.name == "kube_pod_status_phase" &&
                        sample.labels.at("phase") == "Failed" && sample.value == 1);
  }
  CHECK(failed);

  auto never = loadText(preemptionScenario("Never"));
  REQUIRE(never.scenario);
  History waiting = simulate(*never.scenario, Policy::kBaseline);
  CHECK(waiting.preemptions == 0);
  CHECK(waiting.runs[0].finished == kNever);  // the node stays full: the task never runs
}

TEST_CASE("a DaemonSet runs only where its tolerations and selector let it",
          "[simulator][kube][daemonset]") {
  auto loaded = loadText(R"(
name: daemonsets
zones: [z]
node_pools:
  - {name: cpu, count: 2, node_type: compute, cpu: 8, memory: 32Gi}
  - {name: gpu, count: 2, node_type: gpu, cpu: 8, memory: 32Gi, gpu: 1,
     taints: [{key: nvidia.com/gpu, value: present, effect: NoSchedule}]}
daemonsets:
  - {name: log-collector, namespace: logging, cpu: 100m, memory: 128Mi}
  - {name: node-exporter, namespace: monitoring, cpu: 100m, memory: 128Mi, tolerations: [{operator: Exists}]}
  - {name: dcgm-exporter, namespace: monitoring, cpu: 100m, memory: 128Mi,
     tolerations: [{key: nvidia.com/gpu, operator: Exists}], node_selector: {node-type: gpu}}
workflows:
  - {name: w, tasks: [{id: t, cpu: "1", memory: 1Gi}]}
)");
  INFO(loaded.error);
  REQUIRE(loaded.scenario);
  History h = simulate(*loaded.scenario, Policy::kBaseline);
  std::map<std::string, std::set<std::string>> nodesOf;
  for (const auto& p : h.pods) {
    if (p.kind == PodKind::kDaemonSet && p.node >= 0) {
      nodesOf[p.ownerName].insert(h.nodes[static_cast<std::size_t>(p.node)].name);
    }
  }
  CHECK(nodesOf["log-collector"] == std::set<std::string>{"cpu-000", "cpu-001"});
  CHECK(nodesOf["node-exporter"].size() == 4);
  CHECK(nodesOf["dcgm-exporter"] == std::set<std::string>{"gpu-000", "gpu-001"});
}
