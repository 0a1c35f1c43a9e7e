#include "replay/scheduler_latency.h"

#include <catch2/catch.hpp>

#include "replay/replay.h"
#include "replay_builders.h"

using namespace dagadvisor;
using namespace dagadvisor::testing;

namespace {

// Pods arriving within one minute on an idle node, each observed `queued` seconds in the queue.
replay::ReplayInput slowScheduler(const std::vector<double>& queued) {
  replay::ReplayInput in;
  in.window_end = 10'000;
  in.nodes = {replayNode("n1", 64, 256)};
  for (std::size_t i = 0; i < queued.size(); ++i) {
    auto p = replayPod("p" + std::to_string(i), 1, 1, 120 + static_cast<double>(i), 10);
    p.observed_queue_seconds = queued[i];
    in.pods.push_back(p);
  }
  return in;
}

}  // namespace

TEST_CASE("pods that had room give the scheduler's delay: the bucket's lower quartile") {
  replay::ReplayInput in = slowScheduler({30, 40, 50, 60, 70});
  REQUIRE(replay::estimateSchedulerLatency(in).ok());
  // Five samples 30 … 70: nearest rank of the 25th percentile is the second, 40 s.
  CHECK(in.pods[1].queue_latency == Approx(40));
  CHECK(in.pods[0].queue_latency == Approx(30));  // never more than its own queue time
  auto r = replay::replay(in);
  REQUIRE(r.ok());
  CHECK(r->pods[4].arrival == Approx(124));
  CHECK(r->pods[4].bound == Approx(124 + 40));
}

TEST_CASE("a bucket of fewer than three pods takes the median of the whole window") {
  replay::ReplayInput in = slowScheduler({2, 4, 6, 8});
  in.pods[3].arrival = 5000;  // alone in its minute
  REQUIRE(replay::estimateSchedulerLatency(in).ok());
  CHECK(in.pods[3].queue_latency == Approx(4));  // the lower median of 2, 4, 6, 8
  CHECK(in.pods[2].queue_latency == Approx(2));  // its bucket's lower quartile of 2, 4, 6
}

TEST_CASE("pods that waited for room in the replay do not count as scheduler delay") {
  replay::ReplayInput in;
  in.window_end = 10'000;
  in.nodes = {replayNode("n1", 4, 16)};
  for (int i = 0; i < 4; ++i) {
    auto p = replayPod("p" + std::to_string(i), 4, 1, 60 + i, 100);
    p.observed_queue_seconds = i == 0 ? 1 : 100.0 * i;  // the others waited for the node
    in.pods.push_back(p);
  }
  REQUIRE(replay::estimateSchedulerLatency(in).ok());
  // Only p0 was placed at once: one sample, below the bucket minimum, so the window median (1 s).
  CHECK(in.pods[1].queue_latency == Approx(1));
  CHECK(in.pods[3].queue_latency == Approx(1));
}
