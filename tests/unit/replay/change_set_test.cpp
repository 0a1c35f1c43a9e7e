#include "replay/change_set.h"

#include <catch2/catch.hpp>

#include "replay/replay.h"
#include "replay_builders.h"

using namespace dagadvisor;
using namespace dagadvisor::testing;

namespace {

// One GPU node (observed home of every pod: the scores prefer its larger size) and a CPU node.
replay::ReplayInput gpuAndCpu() {
  replay::ReplayInput in;
  in.window_end = 1000;
  in.nodes = {replayNode("gpu-1", 32, 128, 4), replayNode("cpu-1", 8, 32)};
  in.nodes[0].labels.set("node-type", "gpu");
  in.nodes[1].labels.set("node-type", "cpu");
  auto web = replayPod("web", 1, 1, 0, 100);
  web.labels.set("app", "web");
  web.owner_kind = "ReplicaSet";
  web.owner_name = "web-5d8";
  auto train = replayPod("train", 1, 1, 0, 100, 1);
  train.labels.set("app", "train");
  in.pods = {web, train};
  return in;
}

replay::ReplayResult replayed(const replay::ReplayInput& in) {
  auto r = replay::replay(in);
  REQUIRE(r.ok());
  return *r;
}

replay::PodMatch app(const std::string& name) {
  return {"", replay::LabelSelector::equals({{"app", name}}), "", ""};
}

const model::Taint kGpuTaint{"nvidia.com/gpu", "present", "NoSchedule"};

}  // namespace

TEST_CASE("without change both pods go to the emptier GPU node") {
  const auto r = replayed(gpuAndCpu());
  CHECK(r.pods[0].node == 0u);
  CHECK(r.pods[1].node == 0u);
}

TEST_CASE("AddNodeTaint keeps untolerating pods off the matching nodes") {
  replay::ReplayInput in = gpuAndCpu();
  replay::ChangeSet set;
  set.changes.push_back(
      replay::AddNodeTaint{{{}, replay::LabelSelector::equals({{"node-type", "gpu"}})}, kGpuTaint});
  auto report = replay::applyChanges(in, set);
  REQUIRE(report.ok());
  CHECK(report->matched == std::vector<std::size_t>{1});
  CHECK(in.nodes[0].taints.size() == 1);
  CHECK(in.nodes[1].taints.empty());
  const auto r = replayed(in);
  CHECK(r.pods[0].node == 1u);    // web moved to the CPU node
  CHECK_FALSE(r.pods[1].done());  // train tolerates nothing either: it needs the next change
}

TEST_CASE("AddToleration lets the matching pods back onto the tainted nodes") {
  replay::ReplayInput in = gpuAndCpu();
  replay::ChangeSet set;
  set.changes.push_back(replay::AddNodeTaint{{{"gpu-1"}, {}}, kGpuTaint});
  set.changes.push_back(replay::AddToleration{
      app("train"), {"nvidia.com/gpu", replay::TolerationOp::kExists, "", "NoSchedule"}});
  REQUIRE(replay::applyChanges(in, set).ok());
  CHECK(in.pods[1].tolerations.size() == 1);
  CHECK(in.pods[0].tolerations.empty());
  const auto r = replayed(in);
  CHECK(r.pods[0].node == 1u);
  CHECK(r.pods[1].node == 0u);
}

// The observed node stands in for the observed decision only while the nodes a pod may use
// hold what they held: tainting a node changes its population, so the pods that may still use
// it are scored again, and the others keep their observed node.
TEST_CASE("a pod that may use a node a change edited is scored again, not sent back") {
  replay::ReplayInput in = gpuAndCpu();
  in.pods.clear();
  auto batch = replayPod("batch", 1, 1, 0, 100);
  batch.labels.set("app", "batch");
  batch.observed_node = 1;  // observed on the CPU node, when the GPU node was full
  auto report = batch;
  report.name = "report";
  report.labels.set("app", "report");
  in.pods = {batch, report};
  CHECK(replayed(in).pods[0].node == 1u);  // unchanged: both go back where they were seen
  CHECK(replayed(in).pods[1].node == 1u);

  replay::ChangeSet set;
  set.changes.push_back(replay::AddNodeTaint{{{"gpu-1"}, {}}, kGpuTaint});
  set.changes.push_back(replay::AddToleration{
      app("batch"), {"nvidia.com/gpu", replay::TolerationOp::kExists, "", "NoSchedule"}});
  REQUIRE(replay::applyChanges(in, set).ok());
  CHECK(in.pods[0].rescored);
  CHECK_FALSE(in.pods[1].rescored);  // the taint keeps it off the edited node
  const auto r = replayed(in);
  CHECK(r.pods[0].node == 0u);  // scored: the emptier GPU node, which it tolerates
  CHECK(r.pods[1].node == 1u);
}

TEST_CASE("SetNodeSelector pins the matching pods to the labelled nodes") {
  replay::ReplayInput in = gpuAndCpu();
  replay::ChangeSet set;
  set.changes.push_back(replay::SetNodeSelector{app("web"), "node-type", "cpu"});
  set.changes.push_back(replay::SetNodeSelector{app("web"), "node-type", "cpu"});  // replaces
  REQUIRE(replay::applyChanges(in, set).ok());
  CHECK(in.pods[0].node_selector.size() == 1);
  const auto r = replayed(in);
  CHECK(r.pods[0].node == 1u);
  CHECK(r.pods[1].node == 0u);
}

TEST_CASE("SetNodeLabel gives nodes the label a selector names; without it the pods pend") {
  replay::ReplayInput in = gpuAndCpu();
  replay::ChangeSet pin;
  pin.changes.push_back(replay::SetNodeSelector{app("web"), "workload-type", "online"});
  replay::ReplayInput unlabelled = in;
  REQUIRE(replay::applyChanges(unlabelled, pin).ok());
  CHECK_FALSE(replayed(unlabelled).pods[0].node.has_value());  // no node has the label
  replay::ChangeSet set;
  set.changes.push_back(replay::SetNodeLabel{{{in.nodes[1].name}, {}}, "workload-type", "online"});
  set.changes.push_back(pin.changes.front());
  const auto report = replay::applyChanges(in, set);
  REQUIRE(report.ok());
  CHECK(report->matched.front() == 1);
  CHECK(replayed(in).pods[0].node == 1u);
}

TEST_CASE("AddRequiredNodeAffinity is ANDed into the pods' existing terms") {
  replay::ReplayInput in = gpuAndCpu();
  replay::LabelSelector not_gpu;
  not_gpu.requirements.push_back({"node-type", replay::SelectorOp::kNotIn, {"gpu"}});
  replay::ChangeSet set;
  set.changes.push_back(replay::AddRequiredNodeAffinity{app("web"), not_gpu});
  REQUIRE(replay::applyChanges(in, set).ok());
  CHECK(replayed(in).pods[0].node == 1u);

  replay::LabelSelector zone;
  zone.requirements.push_back({"zone", replay::SelectorOp::kExists, {}});
  set.changes = {replay::AddRequiredNodeAffinity{app("web"), zone}};
  REQUIRE(replay::applyChanges(in, set).ok());
  REQUIRE(in.pods[0].node_affinity.terms.size() == 1);
  CHECK(in.pods[0].node_affinity.terms[0].requirements.size() == 2);
  CHECK_FALSE(replayed(in).pods[0].done());  // no node has a zone label
}

TEST_CASE("SetPriority makes the matching pods go first and preempt") {
  replay::ReplayInput in;
  in.window_end = 1000;
  in.nodes = {replayNode("n1", 4, 16)};
  auto batch = replayPod("batch", 4, 1, 0, 100);
  auto critical = replayPod("critical", 4, 1, 10, 10);
  critical.labels.set("tier", "critical");
  in.pods = {batch, critical};
  CHECK(replayed(in).pods[1].bound == Approx(100));

  replay::ChangeSet set;
  set.changes.push_back(replay::SetPriority{
      {"ns", replay::LabelSelector::equals({{"tier", "critical"}}), "", ""}, "dag-critical", 1000});
  REQUIRE(replay::applyChanges(in, set).ok());
  CHECK(in.pods[1].priority_class == "dag-critical");
  const auto r = replayed(in);
  CHECK(r.pods[1].bound == Approx(10));
  CHECK(r.pods[0].evictions == 1);

  // preemptionPolicy: Never puts it first in the queue but evicts nothing: it waits for room.
  replay::ChangeSet never = set;
  std::get<replay::SetPriority>(never.changes[0]).preempts = false;
  REQUIRE(replay::applyChanges(in, never).ok());
  const auto waited = replayed(in);
  CHECK(waited.pods[1].bound == Approx(100));
  CHECK(waited.pods[0].evictions == 0);
}

TEST_CASE("SetRequests resizes the pods of one owner only") {
  replay::ReplayInput in = gpuAndCpu();
  replay::ChangeSet set;
  set.changes.push_back(
      replay::SetRequests{{"ns", {}, "ReplicaSet", "web-5d8"}, 64000, std::nullopt, std::nullopt});
  REQUIRE(replay::applyChanges(in, set).ok());
  CHECK(in.pods[0].requests.cpu_millis == 64000);
  CHECK(in.pods[0].requests.memory_bytes == kGiB);
  CHECK(in.pods[1].requests.cpu_millis == 1000);
  CHECK_FALSE(replayed(in).pods[0].done());  // no node has 64 cores
}

TEST_CASE("a change matching nothing fails the set and names the change") {
  replay::ReplayInput in = gpuAndCpu();
  replay::ChangeSet set;
  set.changes.push_back(replay::SetNodeSelector{app("web"), "node-type", "cpu"});
  set.changes.push_back(replay::AddToleration{app("nonexistent"), {}});
  const auto report = replay::applyChanges(in, set);
  REQUIRE_FALSE(report.ok());
  CHECK(report.error().field == "changes[1]");
}

TEST_CASE("RecreatePods moves running pods off newly tainted nodes; a taint alone does not") {
  replay::ReplayInput in = gpuAndCpu();
  in.window_start = 50;
  auto resident = replayPod("web-old", 1, 1, 0, 0);
  resident.role = replay::PodRole::kFixed;
  resident.labels.set("app", "web");
  resident.owner_kind = "ReplicaSet";
  resident.observed_node = 0;
  resident.observed_bound = 10;  // before the window: it keeps running
  auto daemon = resident;
  daemon.name = "agent";
  daemon.owner_kind = "DaemonSet";
  in.pods.push_back(resident);
  in.pods.push_back(daemon);
  replay::ChangeSet taint;
  taint.changes.push_back(replay::AddNodeTaint{{{"gpu-1"}, {}}, kGpuTaint});
  REQUIRE(replay::applyChanges(in, taint).ok());
  CHECK(replayed(in).pods[2].node == 0u);  // NoSchedule never evicts

  replay::ChangeSet restart;
  restart.changes.push_back(replay::RecreatePods{app("web")});
  const auto report = replay::applyChanges(in, restart);
  REQUIRE(report.ok());
  // web (scheduled anew anyway) and web-old, not the DaemonSet pod.
  CHECK(report->matched == std::vector<std::size_t>{2});
  CHECK(in.pods[2].role == replay::PodRole::kStandalone);
  CHECK(in.pods[2].arrival == Approx(50));
  CHECK(in.pods[2].basis == replay::RunTimeBasis::kUnknown);
  const auto r = replayed(in);
  CHECK(r.pods[2].node == 1u);
  CHECK(r.pods[2].finished == Approx(in.window_end));
  CHECK(r.pods[3].node == 0u);
}

TEST_CASE("a PodMatch can name pods and pick the ones requesting GPUs") {
  replay::ReplayInput in = gpuAndCpu();
  replay::PodMatch named;
  named.names = {in.pods[0].namespace_ + "/web"};
  replay::PodMatch gpus;
  gpus.requesting_gpus = true;
  replay::ChangeSet set;
  set.changes.push_back(replay::SetPriority{named, "critical", 1000});
  set.changes.push_back(
      replay::AddToleration{gpus, {"nvidia.com/gpu", replay::TolerationOp::kExists, "", ""}});
  const auto report = replay::applyChanges(in, set);
  REQUIRE(report.ok());
  CHECK(report->matched == std::vector<std::size_t>{1, 1});
  CHECK(in.pods[0].priority == 1000);
  CHECK(in.pods[1].priority == 0);
  CHECK(in.pods[0].tolerations.empty());
  REQUIRE(in.pods[1].tolerations.size() == 1);
  CHECK(in.pods[1].tolerations[0].key == "nvidia.com/gpu");
}

TEST_CASE("AddPreferredPodAffinity: an anti-affinity on the pods' own label spreads them") {
  // Both pods fit the GPU node, which LeastAllocated prefers for its size; anti-affinity on
  // app=batch (weight 100, per node) outweighs that for the second one.
  replay::ReplayInput in = gpuAndCpu();
  for (replay::ReplayPod& p : in.pods) {
    p.labels.set("app", "batch");
    p.requests.gpus = 0;
  }
  in.pods[1].arrival = 1;  // bound after the first
  const auto before = replayed(in);
  CHECK(before.pods[0].node == before.pods[1].node);

  replay::PreferredPodAffinityTerm term{
      100, true, replay::LabelSelector::equals({{"app", "batch"}}), "kubernetes.io/hostname"};
  auto report = replay::applyChanges(in, {{replay::AddPreferredPodAffinity{app("batch"), term}}});
  REQUIRE(report.ok());
  CHECK(report->matched == std::vector<std::size_t>{2});
  const auto after = replayed(in);
  CHECK(after.pods[0].node != after.pods[1].node);
}

TEST_CASE("AddPreferredPodAffinity: matchLabelKeys selects each pod's own value of the key") {
  replay::ReplayInput in = gpuAndCpu();
  in.pods[0].labels.set("run", "r1");
  in.pods[1].labels.set("run", "r2");
  auto third = in.pods[1];
  third.name = "untagged";
  third.labels = {};
  third.labels.set("app", "train");
  in.pods.push_back(third);
  replay::PreferredPodAffinityTerm term{50, false, {}, "topology.kubernetes.io/zone"};
  replay::PodMatch any{"", {}, "", ""};
  auto report = replay::applyChanges(in, {{replay::AddPreferredPodAffinity{any, term, {"run"}}}});
  REQUIRE(report.ok());
  CHECK(report->matched == std::vector<std::size_t>{3});
  for (const auto& [pod, value] : {std::pair{0, "r1"}, std::pair{1, "r2"}}) {
    const auto& terms = in.pods[static_cast<std::size_t>(pod)].preferred_pod_affinity;
    REQUIRE(terms.size() == 1);
    REQUIRE(terms[0].selector.requirements.size() == 1);
    CHECK(terms[0].selector.requirements[0].key == "run");
    CHECK(terms[0].selector.requirements[0].values == std::vector<std::string>{value});
  }
  // A pod without the key keeps the term as written (the API server ignores a missing key).
  REQUIRE(in.pods[2].preferred_pod_affinity.size() == 1);
  CHECK(in.pods[2].preferred_pod_affinity[0].selector.requirements.empty());
}
