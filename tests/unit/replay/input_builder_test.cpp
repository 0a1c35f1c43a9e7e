#include "replay/input_builder.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <deque>
#include <functional>

#include "graph/cluster_whatif.h"
#include "support/builders.h"

using namespace dagadvisor;
using namespace dagadvisor::testing;

namespace {

// A GPU node (tainted) and a CPU node; a DaemonSet pod and a service that predate the window;
// run r1 finished a → b; run r2's a still runs and its child b pends.
struct Window {
  std::deque<model::WorkflowRun> runs;
  std::unique_ptr<model::ClusterSnapshot> cluster;
  std::vector<graph::RunGraph> graphs;

  replay::ReplayInput build(const replay::InputOptions& options = {}) {
    auto in = replay::buildReplayInput(*cluster, graphs, options);
    REQUIRE(in.ok());
    return *in;
  }
  const replay::ReplayPod& pod(const replay::ReplayInput& in, const std::string& name) {
    auto it = std::find_if(in.pods.begin(), in.pods.end(),
                           [&](const replay::ReplayPod& p) { return p.name == name; });
    REQUIRE(it != in.pods.end());
    return *it;
  }
};

model::Pod taskPod(const std::string& name, const std::string& node, double created,
                   std::optional<double> scheduled, std::optional<double> started,
                   std::optional<double> finished) {
  return makePod("etl", name, node, 2, 4, 0, [&](model::Pod& p) {
    p.created = created;
    p.scheduled = scheduled;
    p.started = started;
    p.finished = finished;
    p.phase = finished ? model::PodPhase::kSucceeded
                       : (node.empty() ? model::PodPhase::kPending : model::PodPhase::kRunning);
  });
}

Window window(const std::function<void(std::vector<model::Pod>&)>& tweak = {},
              const std::function<void(std::vector<model::Node>&)>& tweak_nodes = {}) {
  std::vector<model::Node> nodes = {
      makeNode("gpu-1", 32, 128, 4,
               [](model::Node& n) {
                 n.taints.push_back({"nvidia.com/gpu", "present", "NoSchedule"});
               }),
      makeNode("cpu-1", 16, 64)};
  std::vector<model::Pod> pods = {
      makePod("kube-system", "fluentd-x", "cpu-1", 0.1, 0.2, 0, ownedBy("DaemonSet", "fluentd")),
      makePod("web", "web-1", "gpu-1", 2, 4, 0, ownedBy("ReplicaSet", "web-5d8")),
      taskPod("r1-a", "cpu-1", 1000, 1005, 1010, 1100),
      taskPod("r1-b", "cpu-1", 1103, 1104, 1106, 1200),
      taskPod("r2-a", "cpu-1", 1500, 1501, 1502, std::nullopt),
      taskPod("r2-b", "", 1510, std::nullopt, std::nullopt, std::nullopt),
  };
  pods[1].created = 10;  // long before the window
  if (tweak) {
    tweak(pods);
  }
  if (tweak_nodes) {
    tweak_nodes(nodes);
  }
  Window w;
  w.cluster = std::make_unique<model::ClusterSnapshot>(2000, std::move(nodes), std::move(pods));
  for (const char* run : {"r1", "r2"}) {
    const model::PodId first = std::string(run) == "r1" ? 2 : 4;
    w.runs.push_back({"etl",
                      "daily",
                      run,
                      "labels",
                      {{"a", first, 1, {}}, {"b", first + 1, 1, {}}},
                      {{0, 1}},
                      {}});
    w.graphs.push_back(graph::buildRunGraph(w.runs.back(), *w.cluster));
  }
  return w;
}

// gpu-1 in zone-a, cpu-1 in zone-b.
void inZones(std::vector<model::Node>& nodes) {
  nodes[0].labels.set("topology.kubernetes.io/zone", "zone-a");
  nodes[1].labels.set("topology.kubernetes.io/zone", "zone-b");
}

// r1-b on gpu-1, its parent r1-a staying on cpu-1.
void childOnGpu(std::vector<model::Pod>& pods) {
  pods[3].node_name = "gpu-1";
}

}  // namespace

TEST_CASE("the window opens at the first task's creation and closes at the snapshot") {
  Window w = window();
  const auto in = w.build();
  CHECK(in.window_start == 1000);
  CHECK(in.window_end == 2000);
  CHECK(in.nodes.size() == 2);
  CHECK(in.pods.size() == 6);
  REQUIRE(in.runs.size() == 2);
  CHECK(in.runs[0].observed_finished);
  CHECK(in.runs[0].observed_makespan == Approx(200));
  CHECK_FALSE(in.runs[1].observed_finished);
}

TEST_CASE("DaemonSet pods and pods older than the window are fixed; tasks are replayed") {
  Window w = window();
  const auto in = w.build();
  CHECK(w.pod(in, "fluentd-x").role == replay::PodRole::kFixed);
  CHECK(w.pod(in, "web-1").role == replay::PodRole::kFixed);
  CHECK(w.pod(in, "web-1").observed_released == replay::kForever);
  CHECK(w.pod(in, "r1-a").role == replay::PodRole::kTask);
}

TEST_CASE("a pod seen on a tainted node tolerates its taints; GPU pods tolerate the GPU taint") {
  Window w = window();
  const auto in = w.build();
  const auto& web = w.pod(in, "web-1");
  CHECK(web.tolerations_inferred);
  REQUIRE(web.tolerations.size() == 1);
  CHECK(web.tolerations[0].tolerates({"nvidia.com/gpu", "present", "NoSchedule"}));
  CHECK(w.pod(in, "r1-a").tolerations.empty());
}

TEST_CASE("a pending pod's exported tolerations and node selector are its own") {
  Window w = window([](std::vector<model::Pod>& pods) {
    model::Pod& pending = pods[5];  // r2-b
    pending.requests.gpus = 1;
    pending.tolerations = std::vector<model::Toleration>{
        {"", "Exists", "", "NoSchedule", std::nullopt}, {"gt-key", "Gt", "900", "", std::nullopt}};
    model::LabelSet selector;
    selector.set("accelerator", "nvidia-tesla");
    selector.set("kubernetes.io/os", "linux");  // no node exports it: not checked
    pending.node_selector = selector;
  });
  const auto in = w.build();
  const auto& pending = w.pod(in, "r2-b");
  CHECK_FALSE(pending.tolerations_inferred);
  // Key-less Exists as read, no GPU toleration added by inference, the Gt one left out.
  REQUIRE(pending.tolerations.size() == 1);
  CHECK(pending.tolerations[0].key.empty());
  CHECK(pending.tolerations[0].tolerates({"anything", "x", "NoSchedule"}));
  REQUIRE(pending.node_selector.size() == 1);
  CHECK(pending.node_selector[0].second == "nvidia-tesla");
}

TEST_CASE("observed delays: start delay, hand-off after the last parent, run time") {
  Window w = window();
  const auto in = w.build();
  const auto& a = w.pod(in, "r1-a");
  const auto& b = w.pod(in, "r1-b");
  CHECK(a.start_delay == Approx(5));
  CHECK(a.run_seconds == Approx(90));
  CHECK(a.basis == replay::RunTimeBasis::kObserved);
  CHECK(b.handoff == Approx(3));
  REQUIRE(b.parents.size() == 1);
  CHECK(in.pods[b.parents[0]].name == "r1-a");
}

TEST_CASE("zones: each node's; a measured task's crossing, and what the observed one cost it") {
  replay::InputOptions options;
  options.cross_zone_seconds = {{3, 40.0}, {5, 40.0}};  // r1-b and r2-b, by snapshot pod id
  Window w = window(childOnGpu, inZones);
  const auto in = w.build(options);
  CHECK(in.nodes[0].zone == "zone-a");
  CHECK(in.nodes[1].zone == "zone-b");
  CHECK(w.pod(in, "r1-b").cross_zone_seconds == 40);
  CHECK(w.pod(in, "r1-b").observed_transfer_seconds == 40);  // its parent in the other zone
  CHECK_FALSE(w.pod(in, "r2-b").observed_transfer_seconds.has_value());  // not placed
  CHECK(w.pod(in, "r1-a").cross_zone_seconds == 0);                      // not measured

  Window same_node = window({}, inZones);
  CHECK(same_node.pod(same_node.build(options), "r1-b").observed_transfer_seconds == 0);
  Window unlabelled = window(childOnGpu);
  CHECK_FALSE(
      unlabelled.pod(unlabelled.build(options), "r1-b").observed_transfer_seconds.has_value());
}

TEST_CASE("priced hand-offs charge the received bytes, unless a parent was guessed") {
  replay::InputOptions options;
  options.cross_zone_seconds = {{3, 40.0}};
  options.transfer_prices = {20e-9, 90e-9};
  Window w = window(childOnGpu, inZones);
  w.cluster->joinNetworkReceive({{3, {2e9, 1.9e9}}});  // r1-b received 2 GB
  auto in = w.build(options);
  CHECK(w.pod(in, "r1-b").bytes_per_parent == 2e9);
  CHECK(w.pod(in, "r1-b").cross_zone_seconds == 0);                    // priced instead
  CHECK(*w.pod(in, "r1-b").observed_transfer_seconds == Approx(180));  // 2 GB across zones

  // The same edge guessed from timing: its parent may not be its own, so no price is charged.
  w.runs[0].edges[0].inferred = true;
  w.graphs[0] = graph::buildRunGraph(w.runs[0], *w.cluster);
  in = w.build(options);
  CHECK(w.pod(in, "r1-b").bytes_per_parent == 0);
  CHECK(w.pod(in, "r1-b").cross_zone_seconds == 40);
}

TEST_CASE("unfinished tasks are estimated from finished instances, or marked unknown") {
  Window w = window();
  const auto in = w.build();
  const auto& running = w.pod(in, "r2-a");
  CHECK(running.basis == replay::RunTimeBasis::kEstimated);
  CHECK(running.run_seconds == Approx(498));  // estimate 90 s, but it has run 498 s already
  const auto& pending = w.pod(in, "r2-b");
  CHECK(pending.basis == replay::RunTimeBasis::kEstimated);
  CHECK(pending.run_seconds == Approx(94));  // r1-b's run time
  CHECK(pending.handoff == Approx(3));       // not measured: the median of the measured ones
}

TEST_CASE(
    "a pending task with nothing finished to learn from runs at least as long as one running") {
  // r1-b still runs (894 s so far); r2-b pends, of another shape than every finished task.
  Window w = window([](std::vector<model::Pod>& pods) {
    pods[3].finished.reset();
    pods[3].phase = model::PodPhase::kRunning;
    pods[5].requests.cpu_millis = 3000;
  });
  const auto in = w.build();
  const auto& pending = w.pod(in, "r2-b");
  CHECK(pending.basis == replay::RunTimeBasis::kUnknown);
  CHECK(pending.run_seconds == Approx(894));
  CHECK(w.pod(in, "r1-b").run_seconds == Approx(894));  // r1-a's shape: 90 s, but it ran 894

  Window nothing_runs = window([](std::vector<model::Pod>& pods) {
    pods[3].finished.reset();
    pods[3].phase = model::PodPhase::kFailed;  // ended without a finish time: not running
    pods[5].requests.cpu_millis = 3000;
  });
  CHECK(nothing_runs.pod(nothing_runs.build(), "r2-b").run_seconds == 0);
}

TEST_CASE("priorities come from the configured classes, with the system classes built in") {
  Window w = window();
  replay::InputOptions options;
  options.priority_values["dag-critical"] = 1000;
  auto cluster_pods = w.cluster->pods();
  cluster_pods[2].priority_class = "dag-critical";
  cluster_pods[0].priority_class = "system-node-critical";
  model::ClusterSnapshot cluster(2000, w.cluster->nodes(), cluster_pods);
  auto in = replay::buildReplayInput(cluster, {}, options);
  REQUIRE(in.ok());
  CHECK(in->pods[2].priority == 1000);
  CHECK(in->pods[0].priority == 2000001000);
  CHECK(in->pods[3].priority == 0);
}

TEST_CASE("an empty snapshot is an error, not an empty replay") {
  const model::ClusterSnapshot empty(0, {}, {});
  CHECK_FALSE(replay::buildReplayInput(empty, {}).ok());
}

TEST_CASE("a pod that ended before its container started ran from binding to its end") {
  std::vector<model::Node> nodes = {makeNode("n1", 16, 64)};
  std::vector<model::Pod> pods = {
      taskPod("pulled-never", "n1", 100, 110, std::nullopt, 160),
      makePod("ns", "ended-no-time", "n1", 1, 1, 0,
              [](model::Pod& p) {
                p.created = 120;
                p.scheduled = 121;
                p.started = 125;
                p.phase = model::PodPhase::kFailed;
              }),
  };
  pods[0].phase = model::PodPhase::kFailed;
  const model::ClusterSnapshot cluster(2000, std::move(nodes), std::move(pods));
  std::deque<model::WorkflowRun> runs;
  runs.push_back({"etl", "daily", "r1", "labels", {{"a", 0, 1, {}}}, {}, {}});
  const std::vector<graph::RunGraph> graphs = {graph::buildRunGraph(runs.back(), cluster)};
  auto in = replay::buildReplayInput(cluster, graphs);
  REQUIRE(in.ok());
  REQUIRE(in->pods.size() == 2);
  CHECK(in->pods[0].basis == replay::RunTimeBasis::kObserved);
  CHECK(in->pods[0].run_seconds == Approx(50));
  CHECK(in->pods[1].basis == replay::RunTimeBasis::kElapsed);
  CHECK(in->pods[1].run_seconds == Approx(0));
}
