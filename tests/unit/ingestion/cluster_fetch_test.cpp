#include "ingestion/cluster_fetch.h"

#include <catch2/catch.hpp>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <new>
#include <set>

namespace dagadvisor::ingestion {
namespace {

constexpr const char* kEmptyVector =
    R"({"status":"success","data":{"resultType":"vector","result":[]}})";
constexpr const char* kScalar =
    R"({"status":"success","data":{"resultType":"scalar","result":[1000,"1"]}})";
constexpr const char* kOneNode =
    R"({"status":"success","data":{"resultType":"vector","result":[)"
    R"({"metric":{"node":"n1","resource":"cpu"},"value":[1000,"4"]}]}})";

// One node, so that the fetch has a cluster; every other answer is empty.
sources::QueryBody answerFor(const sources::Query& query) {
  return {query.name == "node_allocatable" ? kOneNode : kEmptyVector};
}

// Answers every query with an empty vector; the first `rendezvous` calls wait (bounded) until
// that many are in flight together, which only a concurrent fetch can achieve.
class FakeSource final : public sources::MetricsSource {
 public:
  FakeSource(std::size_t rendezvous, std::set<std::string> failing)
      : rendezvous_(rendezvous), failing_(std::move(failing)) {}

  Result<sources::QueryBody> instantQuery(const sources::Query& query, UnixSeconds) override {
    std::unique_lock lock(mutex_);
    ++in_flight_;
    max_in_flight_ = std::max(max_in_flight_, in_flight_);
    if (calls_++ < rendezvous_) {
      changed_.notify_all();
      met_ = changed_.wait_for(lock, std::chrono::seconds(5), [&] {
        return max_in_flight_ >= rendezvous_;
      }) && met_;
    }
    --in_flight_;
    if (failing_.count(query.name) > 0) {
      return makeError("refused " + query.name);
    }
    return answerFor(query);
  }
  std::string describe() const override { return "fake"; }
  bool concurrent() const override { return true; }

  std::size_t maxInFlight() const { return max_in_flight_; }
  bool met() const { return met_; }

 private:
  std::size_t rendezvous_;
  std::set<std::string> failing_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::size_t in_flight_ = 0;
  std::size_t max_in_flight_ = 0;
  std::size_t calls_ = 0;
  bool met_ = true;
};

TEST_CASE("queries run concurrently up to the limit, results in catalog order", "[ingestion]") {
  FakeSource source(3, {});
  FetchStats stats;
  auto cluster = fetchClusterSnapshot(source, QueryCatalog({}), 1000, stats, 3);
  REQUIRE(cluster.ok());
  CHECK(source.met());
  CHECK(source.maxInFlight() == 3);
  CHECK(stats.queries == kQueryCount);
  CHECK(stats.warnings.empty());
}

TEST_CASE("a failed optional query is a warning, a failed required one fails the fetch",
          "[ingestion]") {
  FetchStats stats;
  FakeSource optional(0, {"pod_usage_cpu", "scheduling_latency"});
  auto cluster = fetchClusterSnapshot(optional, QueryCatalog({}), 1000, stats, 4);
  REQUIRE(cluster.ok());
  REQUIRE(stats.warnings.size() == 2);
  CHECK_THAT(stats.warnings[0], Catch::Contains("scheduling_latency"));

  FakeSource required(0, {"pod_info"});
  auto failed = fetchClusterSnapshot(required, QueryCatalog({}), 1000, stats, 4);
  REQUIRE_FALSE(failed.ok());
  CHECK_THAT(failed.error().message, Catch::Contains("refused pod_info"));
}

TEST_CASE("a query answering more series than the cap fails the fetch, naming query and key",
          "[ingestion]") {
  struct ManyPods final : sources::MetricsSource {
    Result<sources::QueryBody> instantQuery(const sources::Query& query, UnixSeconds) override {
      if (query.name != "pod_info") {
        return answerFor(query);
      }
      std::string series;
      for (int i = 0; i < 4; ++i) {
        series += std::string(i == 0 ? "" : ",") + R"({"metric":{"pod":"p)" + std::to_string(i) +
                  R"(","node":"n1"},"value":[1000,"1"]})";
      }
      return sources::QueryBody{R"({"status":"success","data":{"resultType":"vector","result":[)" +
                                series + "]}}"};
    }
    std::string describe() const override { return "many pods"; }
  } source;
  FetchStats stats;
  auto capped = fetchClusterSnapshot(source, QueryCatalog({}), 1000, stats, 1, 3);
  REQUIRE_FALSE(capped.ok());
  CHECK(capped.error().field == "pod_info");
  CHECK_THAT(capped.error().message,
             Catch::Contains("query pod_info: data.result: more than 3 series (the cap "
                             "sources.prometheus.max_series_per_query)"));
  CHECK(fetchClusterSnapshot(source, QueryCatalog({}), 1000, stats, 1, 4).ok());
}

TEST_CASE("a query that runs out of memory on a fetch thread fails the fetch, not the process",
          "[ingestion]") {
  struct Exhausted final : sources::MetricsSource {
    Result<sources::QueryBody> instantQuery(const sources::Query& query, UnixSeconds) override {
      if (query.name == "pod_info") {
        throw std::bad_alloc();  // what a body's allocation does under a memory limit
      }
      return answerFor(query);
    }
    std::string describe() const override { return "exhausted"; }
    bool concurrent() const override { return true; }
  } source;
  FetchStats stats;
  auto cluster = fetchClusterSnapshot(source, QueryCatalog({}), 1000, stats, 4);
  REQUIRE_FALSE(cluster.ok());
  CHECK(cluster.error().field == "pod_info");
  CHECK_THAT(cluster.error().message, Catch::Contains("out of memory (std::bad_alloc)"));
}

// Answers node_allocatable with `allocatable` (the JSON of its result array), the rest empty.
struct AllocatableAnswer final : sources::MetricsSource {
  explicit AllocatableAnswer(std::string allocatable) : result(std::move(allocatable)) {}
  Result<sources::QueryBody> instantQuery(const sources::Query& query, UnixSeconds) override {
    if (query.name != "node_allocatable") {
      return answerFor(query);
    }
    return sources::QueryBody{R"({"status":"success","data":{"resultType":"vector","result":[)" +
                              result + "]}}"};
  }
  std::string describe() const override { return "allocatable"; }
  std::string result;
};

TEST_CASE("an answer repeating a label set fails the fetch, naming query and series, unsummed",
          "[ingestion]") {
  // The same series twice, its labels in another order the second time: a proxy's doing.
  AllocatableAnswer repeated(
      R"({"metric":{"node":"n1","resource":"nvidia_com_gpu"},"value":[1000,"8"]},)"
      R"({"metric":{"node":"n1","resource":"cpu"},"value":[1000,"4"]},)"
      R"({"metric":{"resource":"nvidia_com_gpu","node":"n1"},"value":[1000,"8"]})");
  FetchStats stats;
  auto cluster = fetchClusterSnapshot(repeated, QueryCatalog({}), 1000, stats, 1);
  REQUIRE_FALSE(cluster.ok());
  CHECK(cluster.error().field == "node_allocatable");
  CHECK_THAT(cluster.error().message,
             Catch::Contains("query node_allocatable: the answer repeats the series "
                             "{resource=\"nvidia_com_gpu\", node=\"n1\"}"));
  CHECK_THAT(cluster.error().message, Catch::Contains("not summed"));

  AllocatableAnswer distinct(
      R"({"metric":{"node":"n1","resource":"nvidia_com_gpu"},"value":[1000,"8"]},)"
      R"({"metric":{"node":"n2","resource":"nvidia_com_gpu"},"value":[1000,"8"]})");
  auto two_nodes = fetchClusterSnapshot(distinct, QueryCatalog({}), 1000, stats, 1);
  REQUIRE(two_nodes.ok());
  CHECK(two_nodes->nodes().size() == 2);
}

TEST_CASE("the answers of one cycle together may hold max_series_per_cycle series", "[ingestion]") {
  AllocatableAnswer three(R"({"metric":{"node":"n1","resource":"cpu"},"value":[1000,"4"]},)"
                          R"({"metric":{"node":"n2","resource":"cpu"},"value":[1000,"4"]},)"
                          R"({"metric":{"node":"n3","resource":"cpu"},"value":[1000,"4"]})");
  FetchStats stats;
  stats.series = 1;  // what an earlier read of the cycle (the network figures) handed on
  stats.max_series = 3;
  auto capped = fetchClusterSnapshot(three, QueryCatalog({}), 1000, stats, 1);
  REQUIRE_FALSE(capped.ok());
  CHECK(capped.error().field == "node_allocatable");
  CHECK_THAT(capped.error().message,
             Catch::Contains("query node_allocatable: the cycle's answers pass 3 series in all "
                             "(the cap sources.prometheus.max_series_per_cycle)"));

  FetchStats room;
  room.max_series = 3;
  REQUIRE(fetchClusterSnapshot(three, QueryCatalog({}), 1000, room, 1).ok());
  CHECK(room.series == 3);
}

TEST_CASE("a source that is not thread-safe is asked one query at a time", "[ingestion]") {
  struct Sequential final : sources::MetricsSource {
    int in_flight = 0;
    int max_in_flight = 0;
    Result<sources::QueryBody> instantQuery(const sources::Query& query, UnixSeconds) override {
      max_in_flight = std::max(max_in_flight, ++in_flight);
      --in_flight;
      return answerFor(query);
    }
    std::string describe() const override { return "sequential"; }
  } source;
  FetchStats stats;
  REQUIRE(fetchClusterSnapshot(source, QueryCatalog({}), 1000, stats, 8).ok());
  CHECK(source.max_in_flight == 1);
  CHECK(stats.queries == kQueryCount);
}

TEST_CASE("empty or scalar answers to every query fail the fetch instead of an empty cluster",
          "[ingestion]") {
  struct Constant final : sources::MetricsSource {
    const char* body;
    explicit Constant(const char* b) : body(b) {}
    Result<sources::QueryBody> instantQuery(const sources::Query&, UnixSeconds) override {
      return sources::QueryBody{body};
    }
    std::string describe() const override { return "constant"; }
  };
  for (const char* body : {kEmptyVector, kScalar}) {
    Constant source(body);
    FetchStats stats;
    auto cluster = fetchClusterSnapshot(source, QueryCatalog({}), 1000, stats, 1);
    REQUIRE_FALSE(cluster.ok());
    CHECK(cluster.error().field == "node_allocatable");
    CHECK_THAT(cluster.error().message, Catch::Contains("no node in the answers"));
  }
}

}  // namespace
}  // namespace dagadvisor::ingestion
