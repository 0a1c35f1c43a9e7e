#include "ingestion/network_receive_reader.h"

#include <catch2/catch.hpp>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "support/builders.h"

namespace dagadvisor::ingestion {
namespace {

// Answers pod_received and pod_received_mean with each pod it knows, as Prometheus would for the
// pods the query names (the selector's names are read back from the text); records every query;
// refuses the names listed in `failing`.
class ReceiveSource final : public sources::MetricsSource {
 public:
  std::map<std::string, std::pair<double, double>> bytes;  // pod name → total, mean
  std::vector<sources::Query> asked;
  std::set<std::string> failing;

  Result<sources::QueryBody> instantQuery(const sources::Query& query, UnixSeconds) override {
    asked.push_back(query);
    if (failing.count(query.name) > 0) {
      return makeError("refused " + query.name);
    }
    const bool mean = query.name == "pod_received_mean";
    std::string result;
    for (const auto& [pod, figures] : bytes) {
      if (query.promql.find(pod) == std::string::npos) {
        continue;
      }
      result += std::string(result.empty() ? "" : ",") + R"({"metric":{"namespace":"ns","pod":")" +
                pod + R"("},"value":[1000,")" +
                std::to_string(mean ? figures.second : figures.first) + "\"]}";
    }
    return sources::QueryBody{R"({"status":"success","data":{"resultType":"vector","result":[)" +
                              result + "]}}"};
  }
  std::string describe() const override { return "receive"; }
};

model::ClusterSnapshot podsNamed(const std::vector<std::string>& names) {
  std::vector<model::Pod> pods;
  for (const std::string& name : names) {
    pods.push_back(testing::makePod("ns", name, "n1", 1, 1));
  }
  return model::ClusterSnapshot(1000, {testing::makeNode("n1", 8, 32)}, pods);
}

}  // namespace

TEST_CASE("the receive figures select the named pods' series, loopback aside", "[ingestion]") {
  config::PrometheusSource settings;
  settings.selector = R"(cluster="prod")";
  const std::string_view names[] = {"a.b", "c"};
  const auto selector = withSelector(settings, matcherAnyOf("pod", names));
  CHECK(podNetworkReceiveQuery(selector, ReceiveFigure::kTotal, "pod_received").promql ==
        "sum by (namespace, pod) (max by (namespace, pod, interface) (max_over_time("
        "container_network_receive_bytes_total{interface!=\"lo\", cluster=\"prod\", "
        "pod=~\"a\\\\.b|c\"}[6h])))");
  CHECK(podNetworkReceiveQuery(selector, ReceiveFigure::kMean, "x").promql.find("avg_over_time(") !=
        std::string::npos);
}

TEST_CASE("each pod's figures are asked once and kept while the caller names it", "[ingestion]") {
  ReceiveSource source;
  source.bytes = {{"t1", {4e9, 3.5e9}}, {"t2", {1e9, 0.9e9}}};
  NetworkReceiveReader reader{config::PrometheusSource{}};
  const model::ClusterSnapshot cluster = podsNamed({"t1", "t2", "t3"});
  const model::PodId all[] = {0, 1, 2};
  FetchStats stats;
  NetworkReceiveByPod got = reader.read(source, cluster, all, 1000, stats);
  REQUIRE(got.size() == 2);  // t3 has no series: known to have none, not asked again
  CHECK(got.at(0).bytes == 4e9);
  CHECK(got.at(0).mean_bytes == 3.5e9);
  CHECK(got.at(1).mean_bytes == 0.9e9);
  CHECK(source.asked.size() == 2);
  CHECK(stats.warnings.empty());

  got = reader.read(source, cluster, all, 1060, stats);
  CHECK(got.size() == 2);
  CHECK(source.asked.size() == 2);  // nothing new to ask

  // t1 no longer named: forgotten, so asked again when named again.
  const model::PodId later[] = {1, 2};
  CHECK(reader.read(source, cluster, later, 1120, stats).size() == 1);
  CHECK(reader.read(source, cluster, all, 1180, stats).size() == 2);
  CHECK(source.asked.size() == 4);
  CHECK(source.asked.back().promql.find("t1") != std::string::npos);
  CHECK(source.asked.back().promql.find("t2") == std::string::npos);
}

TEST_CASE("a refused receive query is a warning, and its pods are asked again", "[ingestion]") {
  ReceiveSource source;
  source.bytes = {{"t1", {4e9, 3.5e9}}};
  source.failing = {"pod_received_mean"};
  NetworkReceiveReader reader{config::PrometheusSource{}};
  const model::ClusterSnapshot cluster = podsNamed({"t1"});
  const model::PodId all[] = {0};
  FetchStats stats;
  CHECK(reader.read(source, cluster, all, 1000, stats).empty());
  REQUIRE(stats.warnings.size() == 1);
  CHECK_THAT(stats.warnings[0], Catch::Contains("network receive of 1 pod(s) not read"));
  source.failing.clear();
  CHECK(reader.read(source, cluster, all, 1060, stats).size() == 1);
}

namespace {
std::vector<model::PodId> manyPods(int count, std::vector<std::string>& names) {
  std::vector<model::PodId> ids;
  for (int i = 0; i < count; ++i) {
    names.push_back("t" + std::to_string(i));
    ids.push_back(static_cast<model::PodId>(i));
  }
  return ids;
}
}  // namespace

// One name per figure however many requests a read takes: the query-cost metrics carry the
// name as a label, and a label value per request would grow with the cluster.
TEST_CASE("a read of many pods asks each figure in requests of one name", "[ingestion]") {
  ReceiveSource source;
  source.bytes = {{"t7", {4e9, 3.5e9}}, {"t1100", {2e9, 1.5e9}}};
  NetworkReceiveReader reader{config::PrometheusSource{}};
  std::vector<std::string> names;
  const std::vector<model::PodId> all = manyPods(1200, names);
  const model::ClusterSnapshot cluster = podsNamed(names);
  FetchStats stats;
  const NetworkReceiveByPod got = reader.read(source, cluster, all, 1000, stats);
  CHECK(got.size() == 2);
  REQUIRE(source.asked.size() == 6);  // three requests of at most 500 names, two figures each
  std::set<std::string> texts;
  for (const sources::Query& query : source.asked) {
    CHECK((query.name == "pod_received" || query.name == "pod_received_mean"));
    texts.insert(query.promql);
  }
  CHECK(texts.size() == 6);  // each request its own pods
  REQUIRE(stats.costs.size() == 2);
  for (const QueryCost& cost : stats.costs) {
    CHECK(cost.requests == 3);
  }
}

TEST_CASE("the first refused request ends the read with one warning", "[ingestion]") {
  ReceiveSource source;
  source.failing = {"pod_received"};
  NetworkReceiveReader reader{config::PrometheusSource{}};
  std::vector<std::string> names;
  const std::vector<model::PodId> all = manyPods(1200, names);  // three requests of 500 names
  const model::ClusterSnapshot cluster = podsNamed(names);
  FetchStats stats;
  CHECK(reader.read(source, cluster, all, 1000, stats).empty());
  REQUIRE(stats.warnings.size() == 1);
  CHECK_THAT(stats.warnings[0], Catch::Contains("network receive of 1200 pod(s) not read"));
  CHECK(source.asked.size() == 1);  // the first request refused, then nothing
}

}  // namespace dagadvisor::ingestion
