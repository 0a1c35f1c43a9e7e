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

TEST_CASE("a cleared index finds nothing and takes the same keys again", "[model]") {
  RecordIndex index;
  for (int i = 0; i < 5'000; ++i) {
    index.findOrInsert(fingerprint("ns", podName(i)), static_cast<RecordIndex::Record>(i));
  }
  index.clear();
  CHECK(index.size() == 0);
  CHECK_FALSE(index.find(fingerprint("ns", podName(0))));
  CHECK_FALSE(index.find(fingerprint("ns", podName(4'999))));
  CHECK(index.findOrInsert(fingerprint("ns", podName(4'999)), 0) ==
        std::pair<RecordIndex::Record, bool>(0, true));
  CHECK(index.find(fingerprint("ns", podName(4'999))) == RecordIndex::Record{0});
  CHECK(index.size() == 1);
}

TEST_CASE("a cleared store reuses its memory and hands out each record reset", "[model]") {
  struct Record {
    std::string name;
    bool set = false;
  };
  RecordStore<Record> store;
  constexpr std::size_t kFirst = RecordStore<Record>::kChunk + 10;  // two chunks
  for (std::size_t i = 0; i < kFirst; ++i) {
    store.emplaceBack() = {podName(static_cast<int>(i)), true};
  }
  const Record* first = &store[0];
  store.clear();
  CHECK(store.size() == 0);
  // Fewer this time: the records past them keep what the first fill left until reused.
  for (std::size_t i = 0; i < 3; ++i) {
    Record& reused = store.emplaceBack();
    CHECK(reused.name.empty());
    CHECK_FALSE(reused.set);
    reused = {"again", true};
  }
  CHECK(&store[0] == first);
  store.clear();
  for (std::size_t i = 0; i < kFirst; ++i) {
    const Record& reused = store.emplaceBack();
    REQUIRE(reused.name.empty());
    REQUIRE_FALSE(reused.set);
  }
  CHECK(store.size() == kFirst);
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
