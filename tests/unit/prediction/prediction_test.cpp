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
  // Every perturbation gains: the whole range of the paired change is a reduction.
  CHECK(p.gpu_pod_pending_seconds.change_high < 0);
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
