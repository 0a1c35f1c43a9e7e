#include "sources/airflow/airflow_run_ids.h"

#include <catch2/catch.hpp>

namespace dagadvisor::sources {
namespace {

// Expected label values computed with Airflow's make_safe_label_value (Python, hashlib.md5).
TEST_CASE("airflow run ids: the label form Airflow makes is recognised", "[airflow]") {
  // The example of the cncf.kubernetes provider's own tests.
  CHECK(isSafeLabelOf("manual__2016-01-01T0100000100-da4d1ce7b",
                      "manual__2016-01-01T01:00:00+01:00"));
  CHECK(isSafeLabelOf("scheduled__2024-05-01T0000000000-3a72560e5",
                      "scheduled__2024-05-01T00:00:00+00:00"));
  CHECK(isSafeLabelOf("ab-0cd0b7137", "_a+b_"));
  // Too long although every character is safe: cut to 53 and hashed.
  CHECK(isSafeLabelOf(std::string(53, 'x') + "-7d56c0f83", std::string(70, 'x')));
  // An id that is already a valid label value is its own label.
  CHECK(isSafeLabelOf("plain_run-1", "plain_run-1"));
}

TEST_CASE("airflow run ids: other runs' ids do not fit", "[airflow]") {
  CHECK_FALSE(isSafeLabelOf("scheduled__2024-05-01T0000000000-3a72560e5",
                            "scheduled__2024-05-02T00:00:00+00:00"));
  CHECK_FALSE(isSafeLabelOf("plain_run-1", "plain_run-10"));
  CHECK_FALSE(isSafeLabelOf("plain_run-1-0123abcde", "plain_run-1"));
  // The hash part must be 9 lowercase hex digits.
  CHECK_FALSE(isSafeLabelOf("scheduled__2024-05-01T0000000000-3a72560eZ",
                            "scheduled__2024-05-01T00:00:00+00:00"));
  CHECK_FALSE(isSafeLabelOf("", "manual__2016-01-01T01:00:00+01:00"));
}

TEST_CASE("airflow run ids: only a hashed label can stand for another id", "[airflow]") {
  CHECK(hasSafeLabelHash("scheduled__2024-05-01T0000000000-3a72560e5"));
  CHECK(hasSafeLabelHash("ab-0cd0b7137"));
  CHECK_FALSE(hasSafeLabelHash("manual__gone"));
  CHECK_FALSE(hasSafeLabelHash("-0cd0b713"));
  CHECK_FALSE(hasSafeLabelHash("ab_0cd0b7137"));
  CHECK_FALSE(hasSafeLabelHash("ab-0cd0B7137"));
}

TEST_CASE("airflow run ids: the logical-date window of generated ids", "[airflow]") {
  const auto raw = logicalDateWindow("scheduled__2024-05-01T00:00:00+00:00");
  REQUIRE(raw);
  CHECK(raw->first == "2024-04-30T00:00:00Z");
  CHECK(raw->second == "2024-05-03T00:00:00Z");
  // The sanitised form keeps the date; month and year boundaries roll over.
  const auto label = logicalDateWindow("manual__2024-03-01T0100000100-0123abcde");
  REQUIRE(label);
  CHECK(label->first == "2024-02-29T00:00:00Z");
  CHECK(label->second == "2024-03-03T00:00:00Z");
  CHECK_FALSE(logicalDateWindow("my_custom_run"));
  CHECK_FALSE(logicalDateWindow("manual__2024-13-01T00"));
  CHECK_FALSE(logicalDateWindow("manual__2024-02-30T00"));
  CHECK_FALSE(logicalDateWindow("manual__20x4-02-01T00"));
  CHECK_FALSE(logicalDateWindow("manual__"));
}

}  // namespace
}  // namespace dagadvisor::sources
