#include <catch2/catch.hpp>

#include "app/analysis_cycle.h"
#include "app/setup.h"
#include "support/test_support.h"

namespace dagadvisor::app {
namespace {

// Hides the concrete source, as the SnapshotWriter of `snapshot record` does: the cycle then
// asks it the catalog's queries and decodes their JSON bodies.
class QueriesOnly final : public sources::MetricsSource {
 public:
  explicit QueriesOnly(sources::MetricsSource& inner) : inner_(inner) {}
  Result<sources::QueryBody> instantQuery(const sources::Query& query, UnixSeconds at) override {
    ++queries_;
    return inner_.instantQuery(query, at);
  }
  std::string describe() const override { return inner_.describe(); }
  std::size_t queries() const { return queries_; }

 private:
  sources::MetricsSource& inner_;
  std::size_t queries_ = 0;
};

config::Config scrapeConfig() {
  config::Config config;
  config.sources.scrape.targets = {
      testing::fixturePath("exposition/nri-kubernetes-1_35-ksm.metrics.txt"),
      testing::fixturePath("exposition/nri-kubernetes-1_35-kube-scheduler.metrics.txt")};
  return config;
}

}  // namespace

TEST_CASE("a direct scrape's cycle skips the JSON bodies and reports what the JSON path does",
          "[app][scrape]") {
  const config::Config config = scrapeConfig();
  const UnixSeconds at = 1.7824694e9;  // after the fixture scheduler's start
  ManualClock clock(at);
  auto direct_setup = openSource(config);
  auto json_setup = openSource(config);
  REQUIRE(direct_setup.ok());
  REQUIRE(json_setup.ok());
  QueriesOnly through_json(*json_setup->source);

  auto direct = runAnalysisCycle(*direct_setup->source, config, at, clock, nullptr);
  auto expected = runAnalysisCycle(through_json, config, at, clock, nullptr);
  REQUIRE(direct.ok());
  REQUIRE(expected.ok());

  // The direct path: one query per target, the exposition bytes; the other asked 14 queries.
  CHECK((*direct)->queries == config.sources.scrape.targets.size());
  CHECK((*direct)->bytes_received ==
        testing::readFile(config.sources.scrape.targets[0]).size() +
            testing::readFile(config.sources.scrape.targets[1]).size());
  CHECK(through_json.queries() == (*expected)->queries);
  CHECK((*expected)->queries > config.sources.scrape.targets.size());

  const report::AnalysisReport& a = **direct;
  const report::AnalysisReport& b = **expected;
  CHECK(a.source == b.source);
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
  // Rates divide by the time since the scheduler started, up to each scrape's (real) time.
  REQUIRE(a.scheduler.attempts_per_second.size() == b.scheduler.attempts_per_second.size());
  for (const auto& [result, rate] : a.scheduler.attempts_per_second) {
    CHECK(rate == Approx(b.scheduler.attempts_per_second.at(result)).epsilon(1e-3));
  }
  CHECK(a.findings.size() == b.findings.size());
  CHECK(a.recommendations.size() == b.recommendations.size());
}

}  // namespace dagadvisor::app
