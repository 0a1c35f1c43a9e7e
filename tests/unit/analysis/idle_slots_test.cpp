#include "analysis/detectors/idle_slots.h"

#include <catch2/catch.hpp>

#include "scenarios.h"

using namespace dagadvisor;

namespace {

std::vector<analysis::Finding> detectIdleSlots(testing::RunFixture& fx,
                                               const config::Config& config = {}) {
  return fx.detect(analysis::IdleSlots(), config);
}

}  // namespace

TEST_CASE("a ready task pending while a node has room is reported", "[detector][idle-slots]") {
  testing::RunFixture fx = testing::idleSlotScenario();
  const auto findings = detectIdleSlots(fx);
  REQUIRE(findings.size() == 1);
  const analysis::Finding& f = findings[0];
  CHECK(f.kind == "idle-slots");
  CHECK(f.target == "run/etl/daily/r1");
  const auto& e = f.evidenceAs<analysis::IdleSlotsEvidence>();
  CHECK(e.scope.dag == "daily");
  CHECK(e.scope.run == "r1");
  REQUIRE(e.ready_tasks.size() == 1);
  const analysis::IdleReadyTask& task = e.ready_tasks[0];
  CHECK(task.task == "b");
  CHECK(task.ready_wait_seconds == Approx(10'000 - 200));
  CHECK(task.nodes_with_room == std::vector<std::string>{"w1"});
  CHECK(e.lost_slot_seconds == Approx(9'800));
  CHECK(f.impact == Approx(9'800));
  // The API renders the same numbers under the documented keys.
  const auto json = f.evidenceJson();
  CHECK(json["ready_tasks"][0]["task"] == "b");
  CHECK(json["ready_tasks"][0]["nodes_with_room"] == nlohmann::json::array({"w1"}));
  CHECK(json["ready_tasks"][0]["cpu_millis"] == task.requests.cpu_millis);
  CHECK(json["lost_slot_seconds"].get<double>() == Approx(9'800));
  CHECK(json.contains("makespan_seconds"));
  CHECK(json.contains("whatif_makespan_seconds") == e.whatif_makespan_seconds.has_value());
}

TEST_CASE("min_ready_wait holds at its edge", "[detector][idle-slots]") {
  testing::RunFixture fx = testing::idleSlotScenario();
  config::Config config;
  config.detectors.get<analysis::IdleSlotsSettings>().min_ready_wait = config::Seconds(9'800);
  CHECK(detectIdleSlots(fx, config).size() == 1);
  config.detectors.get<analysis::IdleSlotsSettings>().min_ready_wait = config::Seconds(9'801);
  CHECK(detectIdleSlots(fx, config).empty());
}

TEST_CASE("no finding without room, on tainted nodes, or before the parents finish",
          "[detector][idle-slots]") {
  testing::RunFixture full = testing::idleSlotScenario();
  full.pods.push_back(testing::makePod("x", "hog", "w1", 16, 1));
  CHECK(detectIdleSlots(full).empty());
  testing::RunFixture tainted = testing::idleSlotScenario();
  tainted.nodes[0].taints.push_back({"dedicated", "gpu", "NoSchedule"});
  CHECK(detectIdleSlots(tainted).empty());
  testing::RunFixture running = testing::idleSlotScenario();
  running.pods[0].phase = model::PodPhase::kRunning;
  running.pods[0].finished.reset();
  CHECK(detectIdleSlots(running).empty());
}

TEST_CASE("idle-slots stays silent on a healthy cluster", "[detector][idle-slots]") {
  testing::RunFixture fx = testing::healthyScenario();
  CHECK(detectIdleSlots(fx).empty());
}
