#include "ingestion/cluster_builder.h"

#include <catch2/catch.hpp>
#include <cmath>

using namespace dagadvisor;
using ingestion::ClusterBuilder;
using ingestion::QueryId;
using sources::LabelView;
using sources::SampleView;

namespace {

void feed(ClusterBuilder& b, QueryId id, std::vector<LabelView> labels, double value) {
  SampleView s;
  s.labels = labels.data();
  s.label_count = labels.size();
  s.value = value;
  b.add(id, s);
}

}  // namespace

TEST_CASE(
    "a pod's owner is the controller kube_pod_info names, kube_pod_owner only where it names none",
    "[ingestion]") {
  // kube-state-metrics writes both from the pod's ownerReferences: created_by_* is the
  // controller's ("<none>" without one), kube_pod_owner lists every owner.
  const std::vector<LabelView> named = {{"namespace", "ml"}, {"pod", "a"}, {"uid", "ua"}};
  const std::vector<LabelView> unnamed = {{"namespace", "ml"}, {"pod", "b"}, {"uid", "ub"}};
  const std::vector<LabelView> none = {{"namespace", "ml"}, {"pod", "c"}, {"uid", "uc"}};
  auto with = [](std::vector<LabelView> pod, std::vector<LabelView> extra) {
    pod.insert(pod.end(), extra.begin(), extra.end());
    return pod;
  };
  auto info = [&](ClusterBuilder& b) {
    feed(b, QueryId::kPodInfo,
         with(named, {{"created_by_kind", "ReplicaSet"}, {"created_by_name", "web-1"}}), 1);
    feed(b, QueryId::kPodInfo, with(unnamed, {}), 1);  // an exporter without created_by_*
    feed(b, QueryId::kPodInfo,
         with(none, {{"created_by_kind", "<none>"}, {"created_by_name", "<none>"}}), 1);
  };
  auto owners = [&](ClusterBuilder& b) {
    feed(b, QueryId::kPodOwner, with(named, {{"owner_kind", "ConfigMap"}, {"owner_name", "x"}}), 1);
    feed(b, QueryId::kPodOwner, with(unnamed, {{"owner_kind", "Job"}, {"owner_name", "j"}}), 1);
    feed(b, QueryId::kPodOwner, with(none, {{"owner_kind", "Secret"}, {"owner_name", "s"}}), 1);
  };
  for (const bool info_first : {true, false}) {
    ClusterBuilder b(1000);
    if (info_first) {
      info(b);
      owners(b);
    } else {
      owners(b);
      info(b);
    }
    std::vector<std::string> unnamed_pods;
    for (const model::Pod* pod : b.podsOfUnnamedOwner()) {
      unnamed_pods.push_back(pod->name);
    }
    CHECK(unnamed_pods == std::vector<std::string>{"b"});
    const model::ClusterSnapshot snap = std::move(b).build();
    REQUIRE(snap.pods().size() == 3);
    for (const model::Pod& pod : snap.pods()) {
      const std::string owner = pod.owner_kind + "/" + pod.owner_name;
      CHECK(owner == (pod.name == "a"   ? "ReplicaSet/web-1"
                      : pod.name == "b" ? "Job/j"
                                        : "<none>/<none>"));
    }
  }
}

TEST_CASE("kube-state-metrics samples become nodes and pods in model units", "[ingestion]") {
  ClusterBuilder b(1000);
  feed(b, QueryId::kNodeAllocatable, {{"node", "gpu-1"}, {"resource", "cpu"}}, 31.5);
  feed(b, QueryId::kNodeAllocatable, {{"node", "gpu-1"}, {"resource", "memory"}}, 1024.0);
  feed(b, QueryId::kNodeAllocatable, {{"node", "gpu-1"}, {"resource", "nvidia_com_gpu"}}, 4);
  feed(b, QueryId::kNodeLabels, {{"node", "gpu-1"}, {"label_accelerator", "nvidia-tesla"}}, 1);
  feed(b, QueryId::kNodeTaints,
       {{"node", "gpu-1"},
        {"key", "nvidia.com/gpu"},
        {"value", "present"},
        {"effect", "NoSchedule"}},
       1);
  // Labels only, no allocatable: not a node we can reason about.
  feed(b, QueryId::kNodeLabels, {{"node", "ghost"}, {"label_x", "y"}}, 1);

  const std::vector<LabelView> pod = {{"namespace", "ml"}, {"pod", "train-0"}, {"uid", "u1"}};
  auto with = [&](std::vector<LabelView> extra) {
    extra.insert(extra.begin(), pod.begin(), pod.end());
    return extra;
  };
  // The pod's info series before binding (node="") and after: the bound one must win.
  feed(b, QueryId::kPodInfo,
       with({{"node", ""}, {"created_by_kind", "Workflow"}, {"created_by_name", "wf-1"}}), 1);
  feed(b, QueryId::kPodInfo,
       with({{"node", "gpu-1"}, {"created_by_kind", "Workflow"}, {"created_by_name", "wf-1"}}), 1);
  feed(b, QueryId::kPodLive, with({}), 1);
  feed(b, QueryId::kPodPhase, with({{"phase", "Running"}}), 1);
  feed(b, QueryId::kPodRequests, with({{"container", "main"}, {"resource", "cpu"}}), 0.25);
  feed(b, QueryId::kPodRequests, with({{"container", "main"}, {"resource", "memory"}}), 512);
  feed(b, QueryId::kPodRequests, with({{"container", "main"}, {"resource", "nvidia_com_gpu"}}), 1);
  feed(b, QueryId::kPodLabels, with({{"label_dag_id", "train"}}), 1);
  feed(b, QueryId::kPodAnnotations, with({{"annotation_workflow_dependencies", "a,b"}}), 1);
  feed(b, QueryId::kPodOwner, with({{"owner_kind", "Workflow"}, {"owner_name", "wf-1"}}), 1);
  feed(b, QueryId::kPodCreated, with({}), 900);
  feed(b, QueryId::kPodStarted, with({}), 950);

  const model::ClusterSnapshot snap = std::move(b).build();
  REQUIRE(snap.nodes().size() == 1);
  const model::Node& node = snap.node(0);
  CHECK(node.allocatable == model::ResourceVector{31'500, 1024, 4});
  CHECK(node.labels.get("accelerator") == "nvidia-tesla");
  REQUIRE(node.taints.size() == 1);
  CHECK(node.taints[0].effect == "NoSchedule");

  REQUIRE(snap.pods().size() == 1);
  const model::Pod& p = snap.pod(0);
  CHECK(p.node == 0);
  CHECK(p.phase == model::PodPhase::kRunning);
  CHECK(p.requests == model::ResourceVector{250, 512, 1});
  CHECK(p.labels.get("dag-id") == "train");
  CHECK(p.annotations.get("workflow.dependencies") == "a,b");
  CHECK(p.owner_kind == "Workflow");
  CHECK(p.owner_name == "wf-1");
  CHECK(p.created == 900);
  CHECK(p.started == 950);
  CHECK_FALSE(p.finished.has_value());
  CHECK(snap.requestedOn(0) == model::ResourceVector{250, 512, 1});
  CHECK(snap.podsOn(0).size() == 1);
}

TEST_CASE("a pod deleted before the analysis time holds nothing", "[ingestion]") {
  ClusterBuilder b(1000);
  feed(b, QueryId::kNodeAllocatable, {{"node", "n1"}, {"resource", "cpu"}}, 4);
  const std::vector<LabelView> gone = {
      {"namespace", "a"}, {"pod", "worker"}, {"uid", "u"}, {"node", "n1"}};
  feed(b, QueryId::kPodInfo, gone, 1);
  feed(b, QueryId::kPodPhase, {gone[0], gone[1], gone[2], {"phase", "Running"}}, 1);
  feed(b, QueryId::kPodRequests, {gone[0], gone[1], gone[2], {"resource", "cpu"}}, 2);
  feed(b, QueryId::kPodFinished, {gone[0], gone[1], gone[2]}, 990);
  const auto snap = std::move(b).build();
  REQUIRE(snap.pods().size() == 1);
  CHECK(snap.pod(0).phase == model::PodPhase::kSucceeded);
  CHECK(snap.podsOn(0).empty());
  CHECK(snap.requestedOn(0).cpu_millis == 0);
}

TEST_CASE("facts answered by uid alone join the pod its info names, in either order",
          "[ingestion]") {
  ClusterBuilder b(1000);
  feed(b, QueryId::kNodeAllocatable, {{"node", "n1"}, {"resource", "cpu"}}, 4);
  // Before the info series of its pod, and after it.
  feed(b, QueryId::kPodScheduled, {{"uid", "u1"}}, 910);
  feed(b, QueryId::kPodRequests, {{"uid", "u1"}, {"container", "main"}, {"resource", "cpu"}}, 2);
  feed(b, QueryId::kPodInfo, {{"namespace", "a"}, {"pod", "p"}, {"uid", "u1"}, {"node", "n1"}}, 1);
  feed(b, QueryId::kPodInfo, {{"namespace", "a"}, {"pod", "q"}, {"uid", "u2"}, {"node", "n1"}}, 1);
  feed(b, QueryId::kPodLive, {{"uid", "u1"}}, 1);
  feed(b, QueryId::kPodPhase, {{"uid", "u1"}, {"phase", "Running"}}, 1);
  feed(b, QueryId::kPodScheduled, {{"uid", "u2"}}, 920);
  // A uid no info series names: not a pod of this read.
  feed(b, QueryId::kPodStarted, {{"uid", "u9"}}, 930);
  CHECK_FALSE(b.answeredWithoutUid());
  const auto snap = std::move(b).build();
  REQUIRE(snap.pods().size() == 2);
  const model::Pod& p = snap.pod(0);
  CHECK(p.name == "p");
  CHECK(p.namespace_ == "a");
  CHECK(p.scheduled == 910);
  CHECK(p.requests.cpu_millis == 2000);
  CHECK(p.phase == model::PodPhase::kRunning);
  CHECK(snap.requestedOn(0).cpu_millis == 2000);  // live: it holds its node
  CHECK(snap.pod(1).name == "q");
  CHECK(snap.pod(1).scheduled == 920);
}

TEST_CASE("a pod fact answered without a pod or uid says the family lacks uid", "[ingestion]") {
  ClusterBuilder b(1000);
  feed(b, QueryId::kPodInfo, {{"namespace", "a"}, {"pod", "p"}, {"uid", "u1"}, {"node", ""}}, 1);
  feed(b, QueryId::kPodUsageCpu, {}, 1);  // usage is by namespace and pod: not a pod fact
  feed(b, QueryId::kPodSpec, {{"spec", "tolerations_exported"}}, 3);  // a count names no pod
  CHECK_FALSE(b.answeredWithoutUid());
  feed(b, QueryId::kPodScheduled, {}, 910);  // `max by (uid)` of a family without it
  CHECK(b.answeredWithoutUid());
}

TEST_CASE("usage is attached by namespace and pod, whatever the uid", "[ingestion]") {
  ClusterBuilder b(1000);
  feed(b, QueryId::kPodInfo, {{"namespace", "a"}, {"pod", "p"}, {"uid", "u2"}, {"node", ""}}, 1);
  feed(b, QueryId::kPodInfo, {{"namespace", "a"}, {"pod", "q"}, {"uid", "u3"}, {"node", ""}}, 1);
  const std::vector<LabelView> p = {{"namespace", "a"}, {"pod", "p"}};
  feed(b, QueryId::kPodUsageCpu, {p[0], p[1]}, 0.75);
  feed(b, QueryId::kPodUsageMemory, {p[0], p[1]}, 2e9);
  feed(b, QueryId::kPodUsageSamples, {p[0], p[1]}, 288);
  feed(b, QueryId::kPodUsageGpu, {p[0], p[1]}, std::nan(""));
  const auto snap = std::move(b).build();
  REQUIRE(snap.pods().size() == 2);
  REQUIRE(snap.pod(0).usage.has_value());
  CHECK(snap.pod(0).usage->cpu_cores == 0.75);
  CHECK(snap.pod(0).usage->memory_bytes == 2e9);
  CHECK(snap.pod(0).usage->samples == 288);
  CHECK_FALSE(snap.pod(0).usage->gpu_utilization_percent.has_value());
  CHECK_FALSE(snap.pod(1).usage.has_value());
}

TEST_CASE("scheduler quantiles by profile and the scheduler's signals", "[ingestion]") {
  ClusterBuilder b(1000);
  auto latency = [&](std::string_view profile, std::string_view stat, double v) {
    feed(b, QueryId::kSchedulingLatency,
         {{"profile", profile}, {"stat", stat}, {"metric", "scheduler_x_seconds"}}, v);
  };
  latency("gpu", "p95", 4.0);
  latency("default-scheduler", "p50", 0.2);
  latency("default-scheduler", "p99", std::nan(""));  // no observations in the window
  latency("default-scheduler", "rate", 3.5);
  feed(b, QueryId::kSchedulerSignals, {{"signal", "pending"}, {"queue", "backoff"}}, 7);
  feed(b, QueryId::kSchedulerSignals, {{"signal", "unschedulable"}, {"plugin", "NodeResourcesFit"}},
       3);
  feed(b, QueryId::kSchedulerSignals, {{"signal", "attempts"}, {"result", "error"}}, 0.5);
  feed(b, QueryId::kSchedulerSignals, {{"signal", "preemption"}}, 0.25);
  feed(b, QueryId::kSchedulerSignals, {{"signal", "extension_p99"}, {"extension_point", "Filter"}},
       0.04);
  const auto snap = std::move(b).build();
  const model::SchedulerStats& s = snap.scheduler();
  CHECK(s.present);
  CHECK(s.latency_metric == "scheduler_x_seconds");
  REQUIRE(s.latency.size() == 2);
  CHECK(s.latency[0].profile == "default-scheduler");  // sorted by profile
  CHECK(s.latency[0].p50 == 0.2);
  CHECK_FALSE(s.latency[0].p99.has_value());
  CHECK(s.latency[0].pods_per_second == 3.5);
  CHECK(s.latency[1].p95 == 4.0);
  CHECK(s.pending_by_queue.at("backoff") == 7);
  CHECK(s.unschedulable_by_plugin.at("NodeResourcesFit") == 3);
  CHECK(s.attempts_per_second.at("error") == 0.5);
  CHECK(s.preemption_attempts_per_second == 0.25);
  CHECK(s.extension_point_p99.at("Filter") == 0.04);
}

TEST_CASE("without scheduler samples the stats say absent", "[ingestion]") {
  ClusterBuilder b(1000);
  feed(b, QueryId::kSchedulerSignals, {{"signal", "unknown"}}, 1);
  CHECK_FALSE(std::move(b).build().scheduler().present);
}

TEST_CASE("label keys are spelled as kube-state-metrics spells them, camelCase included",
          "[ingestion]") {
  using model::LabelSet;
  // The worked examples of kube-state-metrics' labelName().
  CHECK(model::LabelSet::normalizeKey("workflows.argoproj.io/workflow") ==
        "workflows_argoproj_io_workflow");
  CHECK(model::LabelSet::normalizeKey("tekton.dev/pipelineRun") == "tekton_dev_pipeline_run");
  CHECK(model::LabelSet::normalizeKey("tekton.dev/pipelineRunUID") ==
        "tekton_dev_pipeline_run_uid");
  CHECK(model::LabelSet::normalizeKey("tekton.dev/memberOf") == "tekton_dev_member_of");
  CHECK(model::LabelSet::normalizeKey("pipeline/runid") == "pipeline_runid");
  CHECK(model::LabelSet::normalizeKey("dag-id") == "dag_id");

  // A pod's labels as Prometheus shows them are found by their Kubernetes keys.
  ClusterBuilder b(1000);
  const std::vector<LabelView> pod = {{"namespace", "ci"}, {"pod", "p"}, {"uid", "u"}};
  feed(b, QueryId::kPodInfo, {pod[0], pod[1], pod[2], {"node", ""}}, 1);
  feed(b, QueryId::kPodLabels,
       {pod[0],
        pod[1],
        pod[2],
        {"label_tekton_dev_pipeline_run", "build-x7k2p"},
        {"label_tekton_dev_pipeline_task", "compile"}},
       1);
  const auto snap = std::move(b).build();
  REQUIRE(snap.pods().size() == 1);
  CHECK(snap.pod(0).labels.get("tekton.dev/pipelineRun") == "build-x7k2p");
  CHECK(snap.pod(0).labels.get("tekton.dev/pipelineTask") == "compile");
}

TEST_CASE("app containers keep their real names and requests", "[ingestion]") {
  ClusterBuilder b(1000);
  const std::vector<LabelView> p = {{"namespace", "web"}, {"pod", "api-1"}, {"uid", "u1"}};
  feed(b, QueryId::kPodInfo, {p[0], p[1], p[2], {"node", ""}}, 1);
  feed(b, QueryId::kPodRequests, {p[0], p[1], p[2], {"container", "app"}, {"resource", "cpu"}},
       1.5);
  feed(b, QueryId::kPodRequests, {p[0], p[1], p[2], {"container", "app"}, {"resource", "memory"}},
       2e9);
  feed(b, QueryId::kPodRequests,
       {p[0], p[1], p[2], {"container", "app"}, {"resource", "nvidia_com_gpu"}}, 1);
  feed(b, QueryId::kPodRequests, {p[0], p[1], p[2], {"container", "proxy"}, {"resource", "cpu"}},
       0.25);
  // The pause container is not one of the pod's containers.
  feed(b, QueryId::kPodRequests, {p[0], p[1], p[2], {"container", "POD"}, {"resource", "cpu"}}, 0);
  const auto snap = std::move(b).build();
  REQUIRE(snap.pods().size() == 1);
  const auto& containers = snap.pod(0).containers;
  REQUIRE(containers.size() == 2);
  CHECK(containers[0].name == "app");
  CHECK(containers[0].requests.cpu_millis == 1500);
  CHECK(containers[0].requests.memory_bytes == 2000000000);
  CHECK(containers[0].requests.gpus == 0);  // patches change CPU and memory only
  CHECK(containers[1].name == "proxy");
  CHECK(containers[1].requests.cpu_millis == 250);
  CHECK(containers[1].requests.memory_bytes == 0);
  // The pod's requests are its app containers' sum.
  CHECK(snap.pod(0).requests == model::ResourceVector{1750, 2000000000, 1});
}

TEST_CASE("a pod reserves the larger of its app containers' sum and its largest init container",
          "[ingestion]") {
  ClusterBuilder b(1000);
  const std::vector<LabelView> p = {{"namespace", "web"}, {"pod", "api-1"}, {"uid", "u1"}};
  feed(b, QueryId::kPodInfo, {p[0], p[1], p[2], {"node", ""}}, 1);
  // The init series (no container label) may come before the app containers' series.
  feed(b, QueryId::kPodRequests, {p[0], p[1], p[2], {"resource", "cpu"}}, 2);
  feed(b, QueryId::kPodRequests, {p[0], p[1], p[2], {"resource", "memory"}}, 1e9);
  feed(b, QueryId::kPodRequests, {p[0], p[1], p[2], {"container", "a"}, {"resource", "cpu"}}, 0.5);
  feed(b, QueryId::kPodRequests, {p[0], p[1], p[2], {"container", "b"}, {"resource", "cpu"}}, 0.5);
  feed(b, QueryId::kPodRequests, {p[0], p[1], p[2], {"container", "a"}, {"resource", "memory"}},
       3e9);
  const auto snap = std::move(b).build();
  REQUIRE(snap.pods().size() == 1);
  // CPU: the init container's 2 cores beat the app containers' 1; memory: the app's 3 GB.
  CHECK(snap.pod(0).requests == model::ResourceVector{2000, 3000000000, 0});
  // Init containers are not among the containers a requests patch changes.
  CHECK(snap.pod(0).containers.size() == 2);
}

TEST_CASE("pod_spec carries the pending pods' tolerations and node selectors", "[ingestion]") {
  const std::vector<LabelView> p = {{"namespace", "ml"}, {"pod", "train"}, {"uid", "u1"}};
  const std::vector<LabelView> q = {{"namespace", "ml"}, {"pod", "idle"}, {"uid", "u2"}};
  auto pending = [&](ClusterBuilder& b, const std::vector<LabelView>& key) {
    feed(b, QueryId::kPodInfo, {key[0], key[1], key[2], {"node", ""}}, 1);
    feed(b, QueryId::kPodLive, {key[0], key[1], key[2]}, 1);
    feed(b, QueryId::kPodPhase, {key[0], key[1], key[2], {"phase", "Pending"}}, 1);
  };
  SECTION("families exported: the series are read, a pod without any has none") {
    ClusterBuilder b(1000);
    pending(b, p);
    pending(b, q);
    feed(b, QueryId::kPodSpec,
         {p[0],
          p[1],
          p[2],
          {"spec", "toleration"},
          {"key", "nvidia.com/gpu"},
          {"operator", "Exists"},
          {"effect", "NoSchedule"}},
         1);
    // A key-less Exists with no effect: every label but the operator is absent.
    feed(b, QueryId::kPodSpec, {p[0], p[1], p[2], {"spec", "toleration"}, {"operator", "Exists"}},
         1);
    feed(b, QueryId::kPodSpec,
         {p[0],
          p[1],
          p[2],
          {"spec", "toleration"},
          {"key", "node.kubernetes.io/not-ready"},
          {"operator", "Exists"},
          {"effect", "NoExecute"},
          {"toleration_seconds", "300"}},
         1);
    feed(b, QueryId::kPodSpec,
         {p[0], p[1], p[2], {"spec", "node_selector"}, {"nodeselector_pool", "gpu"}}, 1);
    feed(b, QueryId::kPodSpec, {q[0], q[1], q[2], {"spec", "node_selector"}}, 1);
    feed(b, QueryId::kPodSpec, {{"spec", "tolerations_exported"}}, 3);
    feed(b, QueryId::kPodSpec, {{"spec", "node_selectors_exported"}}, 2);
    const auto snap = std::move(b).build();
    CHECK(snap.specFamilies().tolerations);
    CHECK(snap.specFamilies().node_selectors);
    const auto& train = snap.pod(*snap.findPod("ml", "train"));
    REQUIRE(train.tolerations);
    REQUIRE(train.tolerations->size() == 3);
    CHECK((*train.tolerations)[1].key.empty());
    CHECK((*train.tolerations)[1].effect.empty());
    CHECK_FALSE((*train.tolerations)[0].toleration_seconds);
    CHECK((*train.tolerations)[2].toleration_seconds == 300.0);
    REQUIRE(train.node_selector);
    CHECK(train.node_selector->get("pool") == "gpu");
    const auto& idle = snap.pod(*snap.findPod("ml", "idle"));
    REQUIRE(idle.tolerations);  // kube-state-metrics exports no series for none
    CHECK(idle.tolerations->empty());
    REQUIRE(idle.node_selector);
    CHECK(idle.node_selector->empty());
  }
  SECTION("families not exported: not known, which is not none") {
    ClusterBuilder b(1000);
    pending(b, p);
    const auto snap = std::move(b).build();
    CHECK_FALSE(snap.specFamilies().tolerations);
    CHECK_FALSE(snap.specFamilies().node_selectors);
    CHECK_FALSE(snap.pod(0).tolerations);
    CHECK_FALSE(snap.pod(0).node_selector);
  }
}

TEST_CASE("a kept pod merges with a window that answered only what changes", "[ingestion]") {
  model::Pod kept;
  kept.namespace_ = "ml";
  kept.name = "train-0";
  kept.uid = "u1";
  kept.node_name = "gpu-1";
  kept.phase = model::PodPhase::kRunning;
  kept.requests.cpu_millis = 250;
  kept.labels.set("dag_id", "train");
  kept.owner_kind = "Workflow";
  kept.owner_name = "wf-1";
  kept.created = 900;
  kept.started = 950;
  kept.usage = model::ObservedUsage{1, 2, 3, std::nullopt};
  kept.tolerations.emplace();
  model::Pod gone = kept;
  gone.name = "train-1";
  gone.uid = "u2";
  gone.phase = model::PodPhase::kSucceeded;
  gone.finished = 990;

  ClusterBuilder b(2000);
  feed(b, QueryId::kNodeAllocatable, {{"node", "gpu-1"}, {"resource", "cpu"}}, 8);
  const std::vector<LabelView> pod = {{"namespace", "ml"}, {"pod", "train-0"}, {"uid", "u1"}};
  auto with = [&](std::vector<LabelView> extra) {
    extra.insert(extra.begin(), pod.begin(), pod.end());
    return extra;
  };
  // The window: info (created_by only, as kube_pod_info has it), the phase it finished in and
  // its completion; no requests, labels or owner, which are read once per pod.
  feed(b, QueryId::kPodInfo, with({{"node", "gpu-1"}, {"created_by_kind", "Job"}}), 1);
  feed(b, QueryId::kPodPhase, with({{"phase", "Succeeded"}}), 1);
  feed(b, QueryId::kPodFinished, with({}), 1990);
  b.keepPod(model::Pod(kept));
  b.keepPod(model::Pod(gone));
  const model::ClusterSnapshot snap = std::move(b).build();
  REQUIRE(snap.pods().size() == 2);
  const model::Pod& merged = snap.pod(0);
  CHECK(merged.name == "train-0");
  CHECK(merged.phase == model::PodPhase::kSucceeded);  // the window's
  CHECK(merged.finished == 1990);
  CHECK(merged.started == 950);  // not answered in the window: the kept one
  CHECK(merged.requests.cpu_millis == 250);
  CHECK(merged.labels.get("dag_id") == "train");
  CHECK(merged.owner_kind == "Workflow");  // kube_pod_owner's, not the window's created_by
  CHECK_FALSE(merged.usage);               // no usage answered or kept for it this time
  const model::Pod& kept_whole = snap.pod(1);
  CHECK(kept_whole.name == "train-1");
  CHECK(kept_whole.phase == model::PodPhase::kSucceeded);
  CHECK(kept_whole.finished == 990);
  CHECK(kept_whole.node == 0);          // bound to this snapshot's node ids
  CHECK_FALSE(kept_whole.tolerations);  // read only for pods pending unbound now
}

TEST_CASE("the snapshot's pods are sorted whatever order the answers and the kept pods came in",
          "[ingestion]") {
  // As a window read leaves them: the pods its queries answered first, in the order of the
  // answers, then the kept ones in the last snapshot's order, some of them answered again.
  ClusterBuilder b(2000);
  const std::vector<std::string> answered = {"p7", "p1", "p9", "p4"};
  for (const std::string& name : answered) {
    feed(b, QueryId::kPodInfo, {{"namespace", "ns"}, {"pod", name}, {"uid", "u-" + name}}, 1);
  }
  for (const std::string name : {"p0", "p2", "p3", "p4", "p5", "p6", "p8"}) {
    model::Pod kept;
    kept.namespace_ = name == "p8" ? "another" : "ns";  // a namespace sorting first
    kept.name = name;
    kept.uid = "u-" + kept.name;
    b.keepPod(std::move(kept));
  }
  const model::ClusterSnapshot snap = std::move(b).build();
  std::vector<std::string> names;
  for (const model::Pod& pod : snap.pods()) {
    names.push_back(pod.namespace_ + "/" + pod.name);
  }
  CHECK(names == std::vector<std::string>{"another/p8", "ns/p0", "ns/p1", "ns/p2", "ns/p3", "ns/p4",
                                          "ns/p5", "ns/p6", "ns/p7", "ns/p9"});
}

TEST_CASE("a builder on an earlier builder's memory builds what a fresh one builds",
          "[ingestion]") {
  ingestion::ClusterBuilder::PodMemory memory;
  {
    ClusterBuilder first(1000);
    feed(first, QueryId::kNodeAllocatable, {{"node", "n1"}, {"resource", "cpu"}}, 8);
    for (const char* name : {"a", "b", "c"}) {
      const std::vector<LabelView> pod = {{"namespace", "ns"}, {"pod", name}, {"uid", name}};
      feed(first, QueryId::kPodInfo, pod, 1);
      std::vector<LabelView> request = pod;
      request.insert(request.end(), {{"resource", "cpu"}, {"container", "main"}});
      feed(first, QueryId::kPodRequests, request, 2);
    }
    REQUIRE(std::move(first).build(&memory).pods().size() == 3);
  }
  // The second read: "b" only by its phase (no info: not built), "d" new; "a" and "c" gone.
  auto second = [](ClusterBuilder& b) {
    feed(b, QueryId::kNodeAllocatable, {{"node", "n1"}, {"resource", "cpu"}}, 8);
    feed(b, QueryId::kPodPhase,
         {{"namespace", "ns"}, {"pod", "b"}, {"uid", "b"}, {"phase", "Running"}}, 1);
    feed(b, QueryId::kPodInfo, {{"namespace", "ns"}, {"pod", "d"}, {"uid", "d"}}, 1);
    return std::move(b).build();
  };
  ClusterBuilder reusing(2000, std::move(memory));
  ClusterBuilder fresh(2000);
  const model::ClusterSnapshot reused_snap = second(reusing);
  const model::ClusterSnapshot fresh_snap = second(fresh);
  REQUIRE(reused_snap.pods().size() == 1);
  REQUIRE(fresh_snap.pods().size() == 1);
  CHECK(reused_snap.pod(0).name == "d");
  CHECK(reused_snap.pod(0).requests.cpu_millis == 0);  // not the first read's "a"
  CHECK(reused_snap.pod(0).phase == fresh_snap.pod(0).phase);
}
