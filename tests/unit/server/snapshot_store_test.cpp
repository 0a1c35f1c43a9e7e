#include "server/snapshot_store.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "unit/report/sample_report.h"

using dagadvisor::ManualClock;
using dagadvisor::server::SnapshotStore;
namespace t = dagadvisor::testing;

TEST_CASE("freshness: none yet, fresh, too old, failed, recovered") {
  ManualClock clock(t::kSampleDataTime);
  SnapshotStore store(clock, 300);
  CHECK(store.current() == nullptr);
  CHECK(store.freshness().stale);
  CHECK(store.freshness().reason == "no analysis yet");

  clock.set(t::kSampleDataTime + 2);
  store.publish(t::sampleReport());  // generated_at = data time + 2
  CHECK_FALSE(store.freshness().stale);
  CHECK(store.freshness().reason.empty());
  CHECK(store.status().last_success == t::kSampleDataTime + 2);

  clock.advance(412);
  CHECK(store.freshness().stale);
  CHECK(store.freshness().reason == "analysis is 412s old (stale_after 300s)");
  CHECK(store.freshness().age_seconds == 412);

  clock.set(t::kSampleDataTime + 60);
  store.recordFailure("prometheus: connection refused");
  CHECK(store.freshness().stale);
  CHECK(store.freshness().reason == "last cycle failed: prometheus: connection refused");
  CHECK(store.current() != nullptr);  // the last good analysis is still served
  CHECK(store.status().consecutive_failures == 1);
  store.recordFailure("again");
  CHECK(store.status().consecutive_failures == 2);
  CHECK(store.status().last_attempt == t::kSampleDataTime + 60);

  store.publish(t::sampleReport());
  CHECK_FALSE(store.freshness().stale);
  CHECK(store.status().consecutive_failures == 0);
  CHECK(store.status().last_error.empty());
}

TEST_CASE("publish renders the cached payloads once, as valid JSON") {
  ManualClock clock(t::kSampleDataTime);
  SnapshotStore store(clock, 300);
  store.publish(t::sampleReport());
  const auto published = store.current();
  REQUIRE(published);
  CHECK(nlohmann::json::parse(published->recommendations).size() == 3);
  CHECK(nlohmann::json::parse(published->findings).size() == 4);
  CHECK(nlohmann::json::parse(published->dags).size() == 3);
  CHECK(nlohmann::json::parse(published->summary).at("nodes") == 12);
  CHECK(nlohmann::json::parse(published->detectors).size() == 2);
  store.publish(nullptr);  // ignored
  CHECK(store.current() == published);
}
