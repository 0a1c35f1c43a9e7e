#include <catch2/catch.hpp>

#include "app/analysis_cycle.h"
#include "app/setup.h"
#include "sources/snapshot/snapshot_writer.h"
#include "support/test_support.h"
#include "unit/sources/temp_dir.h"

namespace dagadvisor::app {
namespace {

config::Config scrapeConfig() {
  config::Config config;
  config.sources.scrape.targets = {
      testing::fixturePath("exposition/nri-kubernetes-1_35-ksm.metrics.txt"),
      testing::fixturePath("exposition/nri-kubernetes-1_35-kube-scheduler.metrics.txt")};
  return config;
}

}  // namespace

TEST_CASE("a direct scrape's cycle reports what the replay of its recording reports",
          "[app][scrape]") {
  const config::Config config = scrapeConfig();
  const UnixSeconds at = 1.7824694e9;  // after the fixture scheduler's start
  ManualClock clock(at);
  dagadvisor::testing::TempDir dir;
  const std::string snap = dir / "snap";

  // As `snapshot record` does: the direct cycle, its query answers recorded on the way.
  auto setup = openSource(config);
  REQUIRE(setup.ok());
  REQUIRE(setup->source == nullptr);  // the reader owns its scraper
  sources::SnapshotWriter writer(setup->reader->recordedAnswers(), snap, &clock);
  setup->reader->recordInto(writer);
  auto direct = runAnalysisCycle(*setup->reader, config, at, clock, nullptr);
  REQUIRE(direct.ok());
  REQUIRE(writer.finish(at).ok());

  config::Config replay_config;
  replay_config.sources.snapshot_dir = snap;
  auto replay = openSource(replay_config);
  REQUIRE(replay.ok());
  auto expected = runAnalysisCycle(*replay->reader, replay_config, at, clock, nullptr);
  REQUIRE(expected.ok());

  // The direct path: one query per target, the exposition bytes; the replay asked 21 queries.
  CHECK((*direct)->queries == config.sources.scrape.targets.size());
  CHECK((*direct)->bytes_received ==
        testing::readFile(config.sources.scrape.targets[0]).size() +
            testing::readFile(config.sources.scrape.targets[1]).size());
  CHECK(writer.recordedCount() == (*expected)->queries);
  CHECK((*expected)->queries > config.sources.scrape.targets.size());

  const report::AnalysisReport& a = **direct;
  const report::AnalysisReport& b = **expected;
  CHECK(b.source == "snapshot " + snap + " (recorded from " + a.source + ")");
  CHECK(a.warnings == b.warnings);
  CHECK(a.summary.nodes == b.summary.nodes);
  CHECK(a.summary.pods == b.summary.pods);
  CHECK(a.summary.running_pods == b.summary.running_pods);
  CHECK(a.summary.pending_pods == b.summary.pending_pods);
  CHECK(a.summary.pods > 0);
  REQUIRE(a.nodes.size() == b.nodes.size());
  for (std::size_t i = 0; i < a.nodes.size(); ++i) {
    CHECK(a.nodes[i].name == b.nodes[i].name);
    CHECK(a.nodes[i].allocatable == b.nodes[i].allocatable);
    CHECK(a.nodes[i].requested == b.nodes[i].requested);
  }
  CHECK(a.scheduler.present);
  CHECK(a.scheduler.latency_metric == b.scheduler.latency_metric);
  CHECK(a.scheduler.pending_by_queue == b.scheduler.pending_by_queue);
  // The recording holds the rates of the same evaluation, as decimal text.
  REQUIRE(a.scheduler.attempts_per_second.size() == b.scheduler.attempts_per_second.size());
  CHECK_FALSE(a.scheduler.attempts_per_second.empty());
  for (const auto& [result, rate] : a.scheduler.attempts_per_second) {
    CHECK(rate == Approx(b.scheduler.attempts_per_second.at(result)).epsilon(1e-12));
  }
  CHECK(a.findings.size() == b.findings.size());
  CHECK(a.recommendations.size() == b.recommendations.size());
}

}  // namespace dagadvisor::app
