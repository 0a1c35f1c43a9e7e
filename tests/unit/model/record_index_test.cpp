#include "model/record_index.h"

#include <catch2/catch.hpp>
#include <set>
#include <string>
#include <utility>

namespace dagadvisor::model {
namespace {

std::string podName(int i) {
  return "task-" + std::to_string(i);
}

TEST_CASE("every inserted key is found with its record, through many growths", "[model]") {
  RecordIndex index;
  constexpr int kKeys = 200'000;  // the reference cluster's pod count and then some
  for (int i = 0; i < kKeys; ++i) {
    const auto [record, fresh] = index.findOrInsert(fingerprint("ns", podName(i), "uid"),
                                                    static_cast<RecordIndex::Record>(i));
    REQUIRE(fresh);
    REQUIRE(record == static_cast<RecordIndex::Record>(i));
  }
  CHECK(index.size() == kKeys);
  for (int i = 0; i < kKeys; i += 997) {
    CHECK(index.find(fingerprint("ns", podName(i), "uid")) == static_cast<RecordIndex::Record>(i));
    const auto again = index.findOrInsert(fingerprint("ns", podName(i), "uid"), 7);
    CHECK(again ==
          std::pair<RecordIndex::Record, bool>(static_cast<RecordIndex::Record>(i), false));
  }
  CHECK(index.size() == kKeys);
  CHECK_FALSE(index.find(fingerprint("ns", podName(kKeys), "uid")));
  CHECK_FALSE(index.find(fingerprint("other", podName(0), "uid")));
}

TEST_CASE("an empty index finds nothing", "[model]") {
  CHECK_FALSE(RecordIndex().find(fingerprint("a")));
}

TEST_CASE("fingerprints tell apart keys whose parts only move a boundary", "[model]") {
  CHECK_FALSE(fingerprint("ab", "c") == fingerprint("a", "bc"));
  CHECK_FALSE(fingerprint("a", "", "b") == fingerprint("a", "b", ""));
  CHECK(fingerprint("a", "b") == fingerprint(std::string("a"), std::string_view("b")));
}

TEST_CASE("fingerprints of near-identical pod keys are all distinct in both halves", "[model]") {
  std::set<std::uint64_t> lows;
  std::set<std::uint64_t> highs;
  constexpr int kKeys = 100'000;
  for (int i = 0; i < kKeys; ++i) {
    const Fingerprint f = fingerprint("pipelines", podName(i), "0000");
    lows.insert(f.low);
    highs.insert(f.high);
  }
  CHECK(lows.size() == kKeys);
  CHECK(highs.size() == kKeys);
}

}  // namespace
}  // namespace dagadvisor::model
