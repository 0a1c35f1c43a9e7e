#include "exporter/metric_catalog.h"

#include <prometheus/check_names.h>

#include <catch2/catch.hpp>
#include <set>
#include <string>

using namespace dagadvisor::exporter;

TEST_CASE("every catalogued metric is named, documented and labelled by cluster") {
  const auto catalog = metricCatalog();
  REQUIRE(catalog.size() == static_cast<std::size_t>(MetricId::kCount));
  std::set<std::string_view> names;
  for (std::size_t i = 0; i < catalog.size(); ++i) {
    const MetricSpec& spec = catalog[i];
    INFO(spec.name);
    CHECK(static_cast<std::size_t>(spec.id) == i);
    CHECK(&metricSpec(spec.id) == &spec);
    CHECK(spec.name.starts_with("dagadvisor_"));
    CHECK(prometheus::CheckMetricName(std::string(spec.name)));
    CHECK(names.insert(spec.name).second);
    CHECK(spec.help.size() > 10);
    CHECK(spec.help.back() == '.');
    CHECK(spec.name.ends_with("_total") == (spec.type == MetricType::kCounter));
    REQUIRE_FALSE(spec.labels.empty());
    CHECK(spec.labels.front() == kClusterLabel);
    std::set<std::string_view> labels;
    for (const auto label : spec.labels) {
      CHECK(prometheus::CheckLabelName(std::string(label)));
      CHECK(labels.insert(label).second);
    }
  }
}

TEST_CASE("the catalog holds the metrics dashboards and alerts rely on") {
  const std::set<std::string_view> expected = {"dagadvisor_build_info",
                                               "dagadvisor_cycle_duration_seconds",
                                               "dagadvisor_cycles_total",
                                               "dagadvisor_last_successful_cycle_timestamp_seconds",
                                               "dagadvisor_analysis_stale",
                                               "dagadvisor_data_age_seconds",
                                               "dagadvisor_source_up",
                                               "dagadvisor_gpu_node_hoarded",
                                               "dagadvisor_recommendations_active",
                                               "dagadvisor_dag_run_efficiency_ratio"};
  std::set<std::string_view> names;
  for (const auto& spec : metricCatalog()) {
    names.insert(spec.name);
  }
  for (const auto name : expected) {
    INFO(name);
    CHECK(names.count(name) == 1);
  }
  CHECK(metricSpec(MetricId::kCycleDuration).type == MetricType::kHistogram);
  CHECK(metricTypeName(MetricType::kCounter) == "counter");
}

TEST_CASE("labelPairs pairs label names with values in catalog order") {
  const auto pairs = labelPairs(metricSpec(MetricId::kDagRunMakespan), {"c", "ns", "d", "r"});
  REQUIRE(pairs.size() == 4);
  CHECK(pairs[0] == std::pair<std::string, std::string>{"cluster", "c"});
  CHECK(pairs[1] == std::pair<std::string, std::string>{"namespace", "ns"});
  CHECK(pairs[3] == std::pair<std::string, std::string>{"run", "r"});
  const auto short_list = labelPairs(metricSpec(MetricId::kSourceUp), {"c"});
  REQUIRE(short_list.size() == 2);
  CHECK(short_list[1].second.empty());
}
