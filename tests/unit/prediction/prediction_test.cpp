#include "prediction/prediction.h"

#include <catch2/catch.hpp>

#include "../replay/replay_builders.h"
#include "prediction/perturbation.h"

using namespace dagadvisor;
using namespace dagadvisor::testing;

namespace {

const model::Taint kGpuTaint{"nvidia.com/gpu", "present", "NoSchedule"};

// One GPU node whose CPU a long-running web pod holds, one CPU node with room for it, and a
// two-task run whose second task needs the GPU and most of the GPU node's CPU.
replay::ReplayInput hoardedGpuNode() {
  replay::ReplayInput in;
  in.window_start = 0;
  in.window_end = 2000;
  in.nodes = {replayNode("gpu-1", 8, 64, 1), replayNode("cpu-1", 8, 64)};
  auto web = replayPod("web-0", 6, 4, 0, 0);
  web.role = replay::PodRole::kFixed;
  web.owner_kind = "ReplicaSet";
  web.owner_name = "web-5d8";
  web.observed_node = 0;
  web.observed_bound = -100;
  in.pods.push_back(web);
  addReplayRun(in, "ml/train/run-1",
               {replayPod("prepare", 1, 1, 10, 100), replayPod("train", 6, 8, 0, 300, 1)},
               {{0, 1}});
  return in;
}

replay::ChangeSet taintAndRestart() {
  replay::ChangeSet set;
  replay::PodMatch gpu_pods;
  gpu_pods.requesting_gpus = true;
  set.changes.push_back(replay::AddToleration{
      gpu_pods, {"nvidia.com/gpu", replay::TolerationOp::kExists, "", "NoSchedule"}});
  set.changes.push_back(replay::AddNodeTaint{{{"gpu-1"}, {}}, kGpuTaint});
  set.changes.push_back(replay::RecreatePods{{"ns", {}, "ReplicaSet", "web-5d8"}});
  return set;
}

}  // namespace

TEST_CASE("moving the pod that holds a GPU node is predicted to run the GPU task at once") {
  auto context = prediction::PredictionContext::fromInput(hoardedGpuNode());
  REQUIRE(context.ok());
  const prediction::Prediction p = context->predict(taintAndRestart(), {"ns/train"});
  REQUIRE(p.replayed);
  CHECK(p.replays == 5);
  CHECK(p.matched == std::vector<std::size_t>{1, 1, 1});
  CHECK(p.affected_runs == 1);
  // Before, the GPU task never fits next to the web pod; after, it waits for nothing.
  CHECK(p.watched_pods == 1);
  CHECK(p.watched_pending_seconds.before > 1000);
  CHECK(p.watched_pending_seconds.after == Approx(0).margin(1e-9));
  CHECK(p.gpu_pod_pending_seconds.change() < -1000);
  CHECK(p.gpu_allocation.before == Approx(0).margin(1e-9));
  CHECK(p.gpu_allocation.after > 0.1);
  REQUIRE(p.runs.size() == 1);
  CHECK(p.runs[0].run == "ml/train/run-1");
  CHECK_FALSE(p.runs[0].complete_before);
  CHECK(p.runs[0].complete_after);
  CHECK(p.runs[0].finished_in_window);
  // Every perturbation gains: the whole range of the paired change is a reduction.
  CHECK(p.gpu_pod_pending_seconds.change_high < 0);
}

TEST_CASE("a run still running at the window's end is marked so in the prediction") {
  replay::ReplayInput in = hoardedGpuNode();
  in.runs[0].observed_finished = false;
  auto context = prediction::PredictionContext::fromInput(in);
  REQUIRE(context.ok());
  const prediction::Prediction p = context->predict(taintAndRestart(), {"ns/train"});
  REQUIRE(p.runs.size() == 1);
  CHECK_FALSE(p.runs[0].finished_in_window);
}

// After the window the replay's cluster gets no new pods, so what a pod pending at the window's
// end would have waited among the pods that kept arriving is not known: the GPU pods' wait and
// that of the pods advised on are counted to the window's end.
TEST_CASE("the GPU pods' wait is counted within the window") {
  replay::ReplayInput in = hoardedGpuNode();
  in.pods.push_back(replayPod("batch-late", 1, 1, 1900, 1000));  // runs to ~2,900, past the window
  auto context = prediction::PredictionContext::fromInput(in);
  REQUIRE(context.ok());
  const prediction::Prediction p = context->predict(taintAndRestart(), {"ns/train"});
  REQUIRE(p.replayed);
  // Before, the GPU task never fits: it waits to the window's end (2,000 s; it arrives after
  // `prepare`, at ~110 s), not to the replay's end (~2,900 s, when batch-late finishes).
  CHECK(p.gpu_pod_pending_seconds.before < 2000 - 100);
  CHECK(p.gpu_pod_pending_seconds.before > 2000 - 200);
  CHECK(p.watched_pending_seconds.before == Approx(p.gpu_pod_pending_seconds.before));
  CHECK(p.gpu_pod_pending_seconds.after == Approx(0).margin(1e-9));
}

TEST_CASE("a change that alters no placement is predicted to gain nothing") {
  auto context = prediction::PredictionContext::fromInput(hoardedGpuNode());
  REQUIRE(context.ok());
  replay::ChangeSet set;
  set.changes.push_back(
      replay::SetRequests{{"ns", {}, "ReplicaSet", "web-5d8"}, 5000, std::nullopt, std::nullopt});
  const prediction::Prediction p = context->predict(set);
  REQUIRE(p.replayed);
  CHECK(p.affected_runs == 0);
  CHECK(p.makespan_seconds.change() == 0);
  CHECK(p.gpu_allocation.change_low == 0);
  CHECK(p.gpu_allocation.change_high == 0);
  CHECK(p.runs.empty());
}

TEST_CASE("a change set naming objects the replay lacks is not replayed, and says which") {
  auto context = prediction::PredictionContext::fromInput(hoardedGpuNode());
  REQUIRE(context.ok());
  replay::ChangeSet set;
  set.changes.push_back(replay::RecreatePods{{"ns", {}, "ReplicaSet", "gone-1"}});
  const prediction::Prediction p = context->predict(set);
  CHECK_FALSE(p.replayed);
  CHECK(p.not_replayed.find("changes[0]") != std::string::npos);
}

TEST_CASE("run-time perturbations stay within the spread and leave fixed pods alone") {
  const replay::ReplayInput in = hoardedGpuNode();
  const replay::ReplayInput same = prediction::perturbRunTimes(in, 0, 0.1);
  const replay::ReplayInput a = prediction::perturbRunTimes(in, 1, 0.1);
  const replay::ReplayInput b = prediction::perturbRunTimes(in, 2, 0.1);
  bool differs = false;
  for (std::size_t i = 0; i < in.pods.size(); ++i) {
    CHECK(same.pods[i].run_seconds == in.pods[i].run_seconds);
    CHECK(a.pods[i].run_seconds >= 0.9 * in.pods[i].run_seconds);
    CHECK(a.pods[i].run_seconds <= 1.1 * in.pods[i].run_seconds);
    differs = differs || a.pods[i].run_seconds != b.pods[i].run_seconds;
  }
  CHECK(a.pods[0].run_seconds == in.pods[0].run_seconds);  // fixed
  CHECK(differs);
  CHECK(prediction::perturbRunTimes(in, 1, 0.1).pods[2].run_seconds == a.pods[2].run_seconds);
}

namespace {

// A tainted GPU node two runs queue for, and a CPU pool of their own for two CPU runs: the GPU
// pods cannot use the CPU nodes (no GPUs) and the CPU pods cannot use the GPU node (taint).
replay::ReplayInput gpuQueueBesideCpuPool() {
  replay::ReplayInput in;
  in.window_end = 2000;
  auto gpu = replayNode("gpu-1", 16, 128, 4);
  gpu.taints.push_back(kGpuTaint);
  in.nodes = {gpu, replayNode("cpu-1", 4, 16), replayNode("cpu-2", 4, 16)};
  const auto tolerating = [](replay::ReplayPod p) {
    p.tolerations.push_back({"nvidia.com/gpu", replay::TolerationOp::kExists, "", "NoSchedule"});
    return p;
  };
  addReplayRun(
      in, "ml/a/run-1",
      {tolerating(replayPod("a1", 4, 8, 0, 100, 4)), tolerating(replayPod("a2", 4, 8, 0, 100, 4))},
      {{0, 1}});
  addReplayRun(in, "ml/b/run-1", {tolerating(replayPod("b1", 4, 8, 50, 100, 4))}, {});
  addReplayRun(in, "etl/c/run-1", {replayPod("c1", 4, 8, 0, 300), replayPod("c2", 4, 8, 0, 300)},
               {{0, 1}});
  addReplayRun(in, "etl/d/run-1", {replayPod("d1", 4, 8, 20, 200)}, {});
  return in;
}

replay::ChangeSet criticalTaskFirst() {
  replay::PodMatch a2;
  a2.names = {"ns/a2"};
  return {{replay::SetPriority{a2, "dag-critical", 1000, false}}};
}

void checkSameFigures(const prediction::BeforeAfter& a, const prediction::BeforeAfter& b) {
  CHECK(a.before == Approx(b.before));
  CHECK(a.after == Approx(b.after));
  CHECK(a.change_low == Approx(b.change_low));
  CHECK(a.change_high == Approx(b.change_high));
}

}  // namespace

TEST_CASE("a change to one pool is replayed over its reach and predicts what the whole does") {
  const replay::ReplayInput scoped_window = gpuQueueBesideCpuPool();
  // A pod that could use every node, arriving once all else has finished, joins the pools into
  // one reach without changing any placement: the same change is then replayed whole.
  replay::ReplayInput whole_window = scoped_window;
  auto bridge = replayPod("bridge", 0.1, 0.1, 10000, 10);
  bridge.tolerations.push_back({"", replay::TolerationOp::kExists, "", ""});
  whole_window.pods.push_back(bridge);

  auto scoped_context = prediction::PredictionContext::fromInput(scoped_window);
  auto whole_context = prediction::PredictionContext::fromInput(whole_window);
  REQUIRE(scoped_context.ok());
  REQUIRE(whole_context.ok());
  const prediction::Prediction scoped = scoped_context->predict(criticalTaskFirst());
  const prediction::Prediction whole = whole_context->predict(criticalTaskFirst());
  REQUIRE(scoped.replayed);
  REQUIRE(whole.replayed);
  CHECK_FALSE(scoped.reach.whole);
  CHECK(scoped.reach.nodes == 1);
  CHECK(scoped.reach.pods == 3);
  CHECK(scoped.reach.runs == 2);
  CHECK(whole.reach.whole);
  CHECK(whole.reach.pods == whole_window.pods.size());

  // a2 now goes before b1: run a finishes sooner, run b later, the CPU runs as they were.
  CHECK(scoped.affected_runs == 2);
  CHECK(whole.affected_runs == scoped.affected_runs);
  checkSameFigures(scoped.makespan_seconds, whole.makespan_seconds);
  checkSameFigures(scoped.critical_path_wait_seconds, whole.critical_path_wait_seconds);
  checkSameFigures(scoped.gpu_pod_pending_seconds, whole.gpu_pod_pending_seconds);
  checkSameFigures(scoped.gpu_allocation, whole.gpu_allocation);
  REQUIRE(scoped.runs.size() == 2);
  REQUIRE(whole.runs.size() == 2);
  for (std::size_t i = 0; i < scoped.runs.size(); ++i) {
    CHECK(scoped.runs[i].run == whole.runs[i].run);
    checkSameFigures(scoped.runs[i].makespan_seconds, whole.runs[i].makespan_seconds);
  }
  CHECK(scoped.runs[0].run == "ml/a/run-1");
  CHECK(scoped.runs[0].makespan_seconds.change() < -50);
}

// What the replay cannot see is said beside what it predicts: of the tasks with parents a change
// edits, those whose hand-offs it charges (here the GPU task, once it carries a charge).
TEST_CASE("a prediction counts the tasks it places and the hand-offs it charges of them") {
  replay::ChangeSet run_pods;
  replay::PodMatch ns;
  ns.namespace_ = "ns";
  run_pods.changes.push_back(replay::SetRequests{ns, std::nullopt, std::nullopt, std::nullopt});
  replay::ChangeSet web_only;
  web_only.changes.push_back(
      replay::SetRequests{{"ns", {}, "ReplicaSet", "web-5d8"}, 5000, std::nullopt, std::nullopt});

  auto uncharged = prediction::PredictionContext::fromInput(hoardedGpuNode());
  REQUIRE(uncharged.ok());
  const prediction::Prediction p = uncharged->predict(run_pods);
  REQUIRE(p.replayed);
  CHECK(p.hand_offs.tasks == 1);  // train; prepare has no parent, web is no task
  CHECK(p.hand_offs.charged == 0);
  CHECK(uncharged->handOffCoverage(web_only).tasks == 0);

  replay::ReplayInput in = hoardedGpuNode();
  in.pods[2].cross_zone_seconds = 60;
  in.pods[2].observed_transfer_seconds = 0;  // its parent ran in its zone
  auto charged = prediction::PredictionContext::fromInput(in);
  REQUIRE(charged.ok());
  CHECK(charged->predict(run_pods).hand_offs.charged == 1);
}
