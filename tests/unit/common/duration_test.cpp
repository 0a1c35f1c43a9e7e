#include "common/duration.h"

#include <catch2/catch.hpp>
#include <limits>

using dagadvisor::Duration;
using dagadvisor::formatDuration;
using dagadvisor::formatTimestamp;
using dagadvisor::parseDuration;
using dagadvisor::parseTimestamp;

TEST_CASE("durations in Prometheus notation parse to milliseconds", "[duration]") {
  CHECK(parseDuration("30s").value() == Duration(30'000));
  CHECK(parseDuration("5m").value() == Duration(300'000));
  CHECK(parseDuration("1h30m").value() == Duration(5'400'000));
  CHECK(parseDuration("250ms").value() == Duration(250));
  CHECK(parseDuration("1d2h3m4s5ms").value() == Duration(93'784'005));
  CHECK(parseDuration("0s").value() == Duration(0));
}

TEST_CASE("malformed durations are refused with the reason", "[duration]") {
  for (const char* bad : {"", "30", "s", "5x", "1m1h", "1m1m", "-5s", "1.5h", "5m "}) {
    INFO(bad);
    auto result = parseDuration(bad);
    REQUIRE_FALSE(result.ok());
    CHECK_THAT(result.error().message, Catch::Contains("not a duration"));
  }
}

TEST_CASE("durations print in their shortest form and round-trip", "[duration]") {
  CHECK(formatDuration(Duration(90'000)) == "1m30s");
  CHECK(formatDuration(Duration(0)) == "0s");
  CHECK(formatDuration(Duration(86'400'000 + 250)) == "1d250ms");
  for (const char* text : {"1h30m", "45s", "2d3h", "15ms"}) {
    CHECK(formatDuration(parseDuration(text).value()) == text);
  }
}

TEST_CASE("timestamps parse as RFC 3339 or unix seconds", "[time]") {
  CHECK(parseTimestamp("1795856400").value() == 1795856400.0);
  CHECK(parseTimestamp("1795856400.5").value() == 1795856400.5);
  CHECK(parseTimestamp("1970-01-01T00:00:00Z").value() == 0.0);
  CHECK(parseTimestamp("2026-11-29T03:00:00Z").value() == 1795921200.0);
  CHECK(parseTimestamp("2026-11-29T04:00:00+01:00").value() == 1795921200.0);
  CHECK(parseTimestamp("2026-11-29T03:00:00.25Z").value() == 1795921200.25);
  CHECK(formatTimestamp(1795921200.9) == "2026-11-29T03:00:00Z");
}

TEST_CASE("malformed timestamps are refused", "[time]") {
  for (const char* bad : {"", "yesterday", "2026-13-01T00:00:00Z", "2026-11-29",
                          "2026-11-29T03:00:00", "2026-11-29T03:00:00+0100", "12abc"}) {
    INFO(bad);
    CHECK_FALSE(parseTimestamp(bad).ok());
  }
}

// Found by tests/fuzz/rfc3339_fuzz (seed seeds/rfc3339/beyond-time_t.txt): `--at 8.8e42` parsed,
// and formatting it converted a double beyond time_t's range (undefined behaviour).
TEST_CASE("unix seconds beyond year 9999 are refused; any time formats", "[time]") {
  CHECK_FALSE(parseTimestamp("8800000000000000000000000000000000000000000").ok());
  CHECK_FALSE(parseTimestamp("253402300800").ok());
  CHECK(parseTimestamp("253402300799").value() == 253402300799.0);
  CHECK(formatTimestamp(253402300799.0) == "9999-12-31T23:59:59Z");
  CHECK(formatTimestamp(8.8e42) == "9999-12-31T23:59:59Z");
  CHECK(formatTimestamp(-8.8e42) == "0000-01-01T00:00:00Z");
  CHECK(formatTimestamp(std::numeric_limits<double>::quiet_NaN()) == "1970-01-01T00:00:00Z");
  CHECK(formatTimestamp(std::numeric_limits<double>::infinity()) == "9999-12-31T23:59:59Z");
  CHECK(formatTimestamp(-30610224000.0) == "1000-01-01T00:00:00Z");
  CHECK(formatTimestamp(-59011459200.0) == "0100-01-01T00:00:00Z");  // four digits, as RFC 3339
}

TEST_CASE("object timestamps: RFC 3339 only, malformed or empty ones are absent", "[time]") {
  // Expected values from `date -ud <time> +%s`.
  CHECK(dagadvisor::optionalRfc3339("2019-06-26T09:11:58Z") == 1561540318.0);
  CHECK(dagadvisor::optionalRfc3339("1969-12-31T23:59:59Z") == -1.0);
  CHECK(dagadvisor::optionalRfc3339("2024-02-29T12:00:00+02:00") == 1709200800.0);
  CHECK(dagadvisor::optionalRfc3339("2019-06-26t09:11:58.25z") == 1561540318.25);
  CHECK(dagadvisor::optionalRfc3339("2019-06-26 09:11:58Z") == 1561540318.0);
  CHECK_FALSE(dagadvisor::optionalRfc3339("2019-06-26 09:11"));
  CHECK_FALSE(dagadvisor::optionalRfc3339("2019-13-26T09:11:58Z"));
  CHECK_FALSE(dagadvisor::optionalRfc3339("2019-06-26T09:11:58"));
  CHECK_FALSE(dagadvisor::optionalRfc3339("2019-06-26T09:11:58.Z"));  // a dot needs digits
  CHECK_FALSE(dagadvisor::optionalRfc3339("1561540318"));             // no unix seconds here
  CHECK_FALSE(dagadvisor::optionalRfc3339(""));
}
