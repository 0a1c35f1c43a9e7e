#include "ingestion/incremental_reader.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "ingestion/query_catalog.h"

namespace dagadvisor::ingestion {
namespace {

constexpr const char* kEmpty = R"({"status":"success","data":{"resultType":"vector","result":[]}})";

std::string vector(const std::string& series) {
  return R"({"status":"success","data":{"resultType":"vector","result":[)" + series + "]}}";
}

// One node; `pods` pods with info and a newest sample at the read's time; every other answer
// empty. Records what each read asked.
class ClusterSource final : public sources::MetricsSource {
 public:
  Result<sources::QueryBody> instantQuery(const sources::Query& query, UnixSeconds at) override {
    {
      std::lock_guard lock(mutex_);
      asked_.push_back(query);
    }
    if (query.name == "node_allocatable") {
      return sources::QueryBody{
          vector(R"({"metric":{"node":"n1","resource":"cpu"},"value":[1,"4"]})")};
    }
    if (query.name != "pod_info" && query.name != "pod_seen") {
      return sources::QueryBody{kEmpty};
    }
    std::string series;
    for (int i = 0; i < pods; ++i) {
      const std::string n = std::to_string(i);
      series += std::string(i == 0 ? "" : ",") + R"({"metric":{"namespace":"ns","pod":"p)" + n +
                R"(","uid":"u)" + n + R"(","node":"n1"},"value":[1,")" +
                (query.name == "pod_seen" ? std::to_string(at) : "1") + R"("]})";
    }
    return sources::QueryBody{vector(series)};
  }
  std::string describe() const override { return "cluster"; }
  bool concurrent() const override { return true; }

  std::vector<sources::Query> take() {
    std::lock_guard lock(mutex_);
    return std::exchange(asked_, {});
  }

  int pods = 1;

 private:
  std::mutex mutex_;
  std::vector<sources::Query> asked_;
};

std::size_t count(const std::vector<sources::Query>& asked, const std::string& name) {
  return static_cast<std::size_t>(std::count_if(
      asked.begin(), asked.end(), [&](const sources::Query& q) { return q.name == name; }));
}

const QueryCost* costOf(const FetchStats& stats, const std::string& name) {
  const auto it = std::find_if(stats.costs.begin(), stats.costs.end(),
                               [&](const QueryCost& c) { return c.query == name; });
  return it == stats.costs.end() ? nullptr : &*it;
}

TEST_CASE(
    "a window read sums each query's chunks into one cost, and asks container requests "
    "only of the new pods",
    "[ingestion][incremental]") {
  config::PrometheusSource settings;
  settings.incremental.resync = config::Seconds(3600);
  const std::string container_metric = settings.metrics.pod_requests;
  IncrementalReader reader(settings);
  ClusterSource source;

  FetchStats full;
  REQUIRE(reader.read(source, 10000, full).ok());
  std::vector<sources::Query> asked = source.take();
  CHECK_FALSE(full.window_read);
  CHECK(asked.size() == kQueryCount + 1);  // the catalog and pod_seen
  CHECK(full.costs.size() == kQueryCount + 1);
  CHECK(count(asked, "pod_seen") == 1);

  source.pods = 601;  // 600 new pods: two uid lists of 500 and 100
  FetchStats window;
  auto snapshot = reader.read(source, 10060, window);
  REQUIRE(snapshot.ok());
  CHECK(snapshot->pods().size() == 601);
  asked = source.take();
  REQUIRE(window.window_read);
  CHECK(window.queries == asked.size());
  CHECK(count(asked, "pod_usage") == 0);  // kept until usage_refresh
  CHECK(count(asked, "pod_requests") == 2);
  CHECK(count(asked, "pod_spec") == 3);  // pending pods now, then each list's container requests
  for (const sources::Query& query : asked) {
    const bool per_pod = query.promql.find("uid=~") != std::string::npos;
    if (query.name == "pod_spec" &&
        query.promql.find(container_metric + "{") != std::string::npos) {
      CHECK(per_pod);  // container requests: never the window's live pods
    }
  }
  // One cost per name, whatever the requests; its bytes are theirs summed.
  for (const QueryCost& cost : window.costs) {
    CHECK(std::count_if(window.costs.begin(), window.costs.end(),
                        [&](const QueryCost& c) { return c.query == cost.query; }) == 1);
    CHECK(cost.requests == count(asked, cost.query));
  }
  const QueryCost* requests = costOf(window, "pod_requests");
  REQUIRE(requests != nullptr);
  CHECK(requests->requests == 2);
  CHECK(requests->bytes == 2 * std::string(kEmpty).size());
  CHECK(costOf(window, "pod_usage") == nullptr);
}

TEST_CASE("pod_spec's parts: the catalog's holds both, a window's no container requests",
          "[ingestion][incremental]") {
  const config::PrometheusSource settings;
  const std::string containers = settings.metrics.pod_requests + "{";
  const std::string tolerations = settings.metrics.pod_tolerations + "{";
  const std::string all = QueryCatalog(settings).get(QueryId::kPodSpec).promql;
  CHECK(all == podSpecQuery(settings, PodSpecParts::kAll).promql);
  CHECK(all.find(containers) != std::string::npos);
  CHECK(all.find(tolerations) != std::string::npos);
  const std::string pending = podSpecQuery(settings, PodSpecParts::kPendingNow).promql;
  CHECK(pending.find(containers) == std::string::npos);
  CHECK(pending.find(tolerations) != std::string::npos);
  const std::string once = podSpecQuery(settings, PodSpecParts::kContainers).promql;
  CHECK(once.find(containers) != std::string::npos);
  CHECK(once.find(tolerations) == std::string::npos);
}

}  // namespace
}  // namespace dagadvisor::ingestion
