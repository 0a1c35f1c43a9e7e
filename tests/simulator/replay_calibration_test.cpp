// Calibration of dagadvisor's replay (src/replay) on the simulator's scenarios: each scenario is
// simulated, rebuilt as the daemon's model (nodes with labels and taints, every pod with its
// times, requests and owner, each run with its true DAG), and replayed without change; the
// replayed makespan of every run that finished must be close to the simulated one, and so must
// the GPU pods' wait within the window. The simulator is the oracle here: the replay shares no
// code with it, only what a real cluster would show. The distribution is printed on every run.
#include <catch2/catch.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "replay/calibration.h"
#include "replay/scheduler_latency.h"
#include "replay_window.h"
#include "unit/replay/calibration_print.h"

namespace {

namespace replay = dagadvisor::replay;
using dagadvisor::sim::test::windowOf;
using dagadvisor::testing::printCalibration;

replay::CalibrationReport calibrated(const replay::ReplayInput& input,
                                     const replay::SchedulerProfile& profile) {
  auto c = replay::calibrate(input, profile);
  REQUIRE(c.ok());
  return std::move(*c);
}

// The pipeline as the daemon runs it: the scheduler's delay measured, the queue order fitted.
replay::FittedProfile fitted(replay::ReplayInput& input) {
  REQUIRE(replay::estimateSchedulerLatency(input).ok());
  auto fit = replay::fitQueueOrder(input);
  REQUIRE(fit.ok());
  return std::move(*fit);
}

const char* orderName(replay::QueueOrder order) {
  return order == replay::QueueOrder::kArrival ? "arrival" : "queue timestamp";
}

const std::vector<std::string> kScenarios = {
    "seed",          "gpu-hoarding", "split-dependencies", "run-stacking", "dag-stacking",
    "latency-spike", "mixed-online", "burst-shortfall",    "healthy"};

}  // namespace

TEST_CASE("an unchanged replay reproduces the simulated makespans of finished runs",
          "[simulator][replay]") {
  for (const std::string& name : kScenarios) {
    INFO(name);
    replay::ReplayInput input = windowOf(name);
    const replay::FittedProfile fit = fitted(input);
    std::printf("scenario %s: queue order fitted: %s\n", name.c_str(),
                orderName(fit.profile.queue_order));
    printCalibration(name, fit.calibration);
    CHECK(fit.calibration.finished_runs > 0);
    CHECK(fit.calibration.median_error <= 0.10);
    // The GPU pods' wait within the window, where the scenario has GPU pods: within 10 %, or
    // one 30-s step of the scenario's scrapes where they hardly wait.
    CHECK(std::abs(fit.calibration.replayed_gpu_pod_wait - fit.calibration.observed_gpu_pod_wait) <=
          0.10 * fit.calibration.observed_gpu_pod_wait + 30);
  }
}

// One part of the emulation changed at a time, to show what each contributes: kube-scheduler's
// queue rule and the simulator's, every pod placed by the emulated scores alone (the fitted
// order), and no scheduler latency (the fitted order).
TEST_CASE("what each part of the emulation contributes to the calibration", "[simulator][replay]") {
  for (const std::string& name : kScenarios) {
    INFO(name);
    replay::ReplayInput input = windowOf(name);
    const replay::ReplayInput without_latency = input;
    const replay::FittedProfile fit = fitted(input);
    replay::SchedulerProfile kube;
    replay::SchedulerProfile arrival;
    arrival.queue_order = replay::QueueOrder::kArrival;
    replay::SchedulerProfile scored = fit.profile;
    scored.prefer_observed_node = false;
    const auto by_kube = calibrated(input, kube);
    const auto by_arrival = calibrated(input, arrival);
    const auto by_score = calibrated(input, scored);
    const auto no_latency = calibrated(without_latency, fit.profile);
    printCalibration(name + " / kube queue order", by_kube, false);
    printCalibration(name + " / arrival order", by_arrival, false);
    printCalibration(name + " / scores only", by_score, false);
    printCalibration(name + " / no latency", no_latency, false);
    CHECK(fit.calibration.median_error <= by_kube.median_error);
    CHECK(fit.calibration.median_error <= by_arrival.median_error);
    CHECK(by_score.median_error <= 0.10);
    CHECK(no_latency.median_error <= 0.10);
  }
}

// The reference-size scenario (5,000 nodes, 150,000 pods): hidden, run by hand with
// `sim_replay_tests "[scale]"`; it prints how long the input, the delay estimate and one replay
// take (figures for docs/whatif.md, never asserted).
TEST_CASE("calibration at the reference size", "[.][scale]") {
  using Clock = std::chrono::steady_clock;
  const auto seconds = [](Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double>(b - a).count();
  };
  const auto t0 = Clock::now();
  replay::ReplayInput input = windowOf("scale");
  const auto t1 = Clock::now();
  REQUIRE(replay::estimateSchedulerLatency(input).ok());
  const auto t2 = Clock::now();
  const auto c = calibrated(input, {});
  const auto t3 = Clock::now();
  replay::SchedulerProfile scored;
  scored.prefer_observed_node = false;
  const auto by_score = calibrated(input, scored);
  const auto t4 = Clock::now();
  printCalibration("scale", c, false);
  printCalibration("scale / scores only", by_score, false);
  std::printf(
      "scale: %zu pods, %zu nodes; simulate + input %.1f s, delay estimate %.1f s, "
      "replay + calibration %.1f s, scores only %.1f s\n",
      input.pods.size(), input.nodes.size(), seconds(t0, t1), seconds(t1, t2), seconds(t2, t3),
      seconds(t3, t4));
  CHECK(by_score.median_error <= 0.10);
  CHECK(c.median_error <= 0.10);
}
