#include "ingestion/range_start.h"

#include <catch2/catch.hpp>
#include <string>

namespace dagadvisor::ingestion {
namespace {

// Answers the probe with `steps`, or with an error when it is empty; remembers the time asked.
class StepsSource final : public sources::MetricsSource {
 public:
  explicit StepsSource(std::string steps) : steps_(std::move(steps)) {}
  Result<sources::QueryBody> instantQuery(const sources::Query& query, UnixSeconds at) override {
    asked_at = at;
    asked = query.promql;
    if (steps_.empty()) {
      return makeError("not recorded");
    }
    return sources::QueryBody{R"({"status":"success","data":{"resultType":"vector","result":[)"
                              R"({"metric":{},"value":[1,")" +
                              steps_ + R"("]}]}})"};
  }
  std::string describe() const override { return "steps"; }
  UnixSeconds asked_at = 0;
  std::string asked;

 private:
  std::string steps_;
};

TEST_CASE("three minute steps in two minutes: closed ranges; two: open", "[ingestion]") {
  FetchStats stats;
  StepsSource closed("3");
  CHECK(probeRangeStart(closed, 1795827727.5, stats) == RangeStart::kClosed);
  CHECK(closed.asked_at == 1795827720);  // the whole minute, where a step lies on the start
  CHECK(closed.asked == "count_over_time(vector(1)[2m:1m])");
  CHECK(stats.queries == 1);
  StepsSource open("2");
  CHECK(probeRangeStart(open, 1795827720, stats) == RangeStart::kOpen);
  CHECK(open.asked_at == 1795827720);
  StepsSource odd("5");
  CHECK_FALSE(probeRangeStart(odd, 1795827720, stats).has_value());
  StepsSource silent("");
  CHECK_FALSE(probeRangeStart(silent, 1795827720, stats).has_value());
  CHECK(stats.queries == 3);  // the refused one is not counted
}

TEST_CASE("a range holds a sample on its start only when closed", "[ingestion]") {
  CHECK(rangeHolds(RangeStart::kClosed, 100, 100));
  CHECK_FALSE(rangeHolds(RangeStart::kOpen, 100, 100));
  CHECK(rangeHolds(RangeStart::kOpen, 100, 100.001));
  CHECK_FALSE(rangeHolds(RangeStart::kClosed, 100, 99.999));
}

}  // namespace
}  // namespace dagadvisor::ingestion
