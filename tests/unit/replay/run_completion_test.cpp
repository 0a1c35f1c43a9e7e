#include "replay/run_completion.h"

#include <catch2/catch.hpp>

#include "replay/replay.h"
#include "replay_builders.h"

using namespace dagadvisor;
using namespace dagadvisor::testing;

namespace {

// A task `id` of a run of etl/daily (its pod name is the run's and the task's).
replay::ReplayPod dagTask(const std::string& run, const std::string& id, UnixSeconds arrival,
                          double run_seconds, std::int64_t gpus = 0) {
  replay::ReplayPod p = replayPod(run + "-" + id, 1, 1, arrival, run_seconds, gpus);
  p.task = id;
  p.labels.set("run", run);
  return p;
}

void ofDailyDag(replay::ReplayRun& run, const std::string& name) {
  run.dag = "etl/daily";
  run.run_labels = {{"run", name}};
}

// r1 finished prepare → train (GPU) → publish; r2's prepare still ran at the window's end (1000).
replay::ReplayInput twoRunsOfOneDag() {
  replay::ReplayInput in;
  in.window_end = 1000;
  in.nodes = {replayNode("n1", 8, 16, 1)};
  addReplayRun(in, "etl/daily/r1",
               {dagTask("r1", "prepare", 0, 100), dagTask("r1", "train", 0, 300, 1),
                dagTask("r1", "publish", 0, 50)},
               {{0, 1}, {1, 2}});
  ofDailyDag(in.runs[0], "r1");
  addReplayRun(in, "etl/daily/r2", {dagTask("r2", "prepare", 900, 200)}, {});
  ofDailyDag(in.runs[1], "r2");
  in.runs[1].observed_finished = false;
  return in;
}

}  // namespace

TEST_CASE("a running run gets the tasks it had not created from a finished run of its DAG") {
  replay::ReplayInput in = twoRunsOfOneDag();
  REQUIRE(replay::completeRunningRuns(in) == 2);
  const replay::ReplayRun& r2 = in.runs[1];
  REQUIRE(r2.tasks.size() == 3);
  const replay::ReplayPod& train = in.pods[r2.tasks[1]];
  const replay::ReplayPod& publish = in.pods[r2.tasks[2]];
  CHECK(train.task == "train");
  CHECK(train.unseen);
  CHECK(train.run == 1);
  CHECK(train.parents == std::vector<replay::ReplayPodId>{r2.tasks[0]});  // r2's own prepare
  CHECK(in.pods[r2.tasks[0]].children == std::vector<replay::ReplayPodId>{r2.tasks[1]});
  CHECK(publish.parents == std::vector<replay::ReplayPodId>{r2.tasks[1]});
  CHECK(train.run_seconds == 300);
  CHECK(train.basis == replay::RunTimeBasis::kEstimated);
  CHECK(train.labels.get("run") == "r2");  // selected with its own run, not r1
  CHECK(train.name == "etl/daily/r2/train");
  // Modelled, not observed: not one of the GPU pods whose wait is compared with the observation.
  CHECK_FALSE(replay::requestsGpusAnew(train));
  CHECK(replay::requestsGpusAnew(in.pods[in.runs[0].tasks[1]]));

  // Replayed, the run ends with its publish step, not with the prepare step it had reached.
  const auto result = replay::replay(in);
  REQUIRE(result.ok());
  CHECK(result->runs[1].makespan == Approx(200 + 300 + 50));
}

TEST_CASE("a run with a task no finished run of its DAG has stays as seen") {
  replay::ReplayInput in = twoRunsOfOneDag();
  in.pods[in.runs[1].tasks[0]].task = "prepare-v2";
  CHECK(replay::completeRunningRuns(in) == 0);
  CHECK(in.runs[1].tasks.size() == 1);

  replay::ReplayInput other_dag = twoRunsOfOneDag();
  other_dag.runs[0].dag = "etl/weekly";
  CHECK(replay::completeRunningRuns(other_dag) == 0);
}
