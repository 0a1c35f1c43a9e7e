#include <prometheus/registry.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <regex>
#include <set>
#include <sstream>

#include "exporter/metric_catalog.h"
#include "exporter/metrics_handler.h"
#include "exporter/report_collector.h"
#include "support/test_support.h"
#include "unit/report/sample_report.h"

using namespace dagadvisor::exporter;
namespace t = dagadvisor::testing;

namespace {

std::string scrape(std::shared_ptr<const dagadvisor::report::AnalysisReport> report,
                   std::size_t top_runs = 50) {
  MetricsHandler handler;
  handler.add(std::make_shared<ReportCollector>(
      [report] { return std::vector<decltype(report)>{report}; }, top_runs));
  auto text = handler.render();
  REQUIRE(text.ok());
  return *text;
}

bool hasLine(const std::string& text, const std::string& line) {
  std::istringstream lines(text);
  for (std::string l; std::getline(lines, l);) {
    if (l == line) {
      return true;
    }
  }
  return false;
}

std::string docsPath() {
  return std::string(DAGADVISOR_SOURCE_DIR) + "/docs/metrics.md";
}

}  // namespace

TEST_CASE("per-run wait share and what-if, scheduler quantiles and queues are exported") {
  const std::string text = scrape(t::sampleReport());
  CHECK(hasLine(text,
                "dagadvisor_dag_run_wait_share_ratio{cluster=\"prod-eu\",namespace=\"ml\","
                "dag=\"train\",run=\"2026-11-28\"} 0.25"));
  CHECK(hasLine(text,
                "dagadvisor_dag_run_whatif_makespan_seconds{cluster=\"prod-eu\",namespace=\"ml\","
                "dag=\"train\",run=\"2026-11-28\"} 5760"));
  CHECK(hasLine(text,
                "dagadvisor_scheduling_latency_seconds{cluster=\"prod-eu\",profile=\"default-"
                "scheduler\",percentile=\"99\"} 1.5"));
  // A profile without observations has no quantile series rather than a fake zero.
  CHECK(text.find("profile=\"gpu-scheduler\"") == std::string::npos);
  CHECK(hasLine(
      text, "dagadvisor_scheduler_pending_pods{cluster=\"prod-eu\",queue=\"unschedulable\"} 5"));
}

TEST_CASE("stranded shares are exported for affected nodes only") {
  const std::string text = scrape(t::sampleReport());
  CHECK(hasLine(text,
                "dagadvisor_node_stranded_share_ratio{cluster=\"prod-eu\",node=\"cpu-1\","
                "resource=\"memory\"} 0.6875"));
  CHECK(text.find("dagadvisor_node_stranded_share_ratio{cluster=\"prod-eu\",node=\"gpu-a\"") ==
        std::string::npos);
}

TEST_CASE("a run without a what-if has no what-if series; top-N bounds the new series too") {
  auto report = t::sampleReport();
  for (auto& run : report->runs) {
    run.whatif_makespan_seconds.reset();
  }
  const std::string text = scrape(report, 1);
  CHECK(text.find("dagadvisor_dag_run_whatif_makespan_seconds{") == std::string::npos);
  std::size_t wait_series = 0;
  std::istringstream lines(text);
  for (std::string l; std::getline(lines, l);) {
    wait_series += l.rfind("dagadvisor_dag_run_wait_share_ratio{", 0) == 0 ? 1 : 0;
  }
  CHECK(wait_series == 1);
}

TEST_CASE("docs/metrics.md is generated from the catalog", "[docs]") {
  const std::string rendered = renderMetricsMarkdown();
  if (std::getenv("DAGADVISOR_UPDATE_DOCS") != nullptr) {
    std::ofstream(docsPath()) << rendered;
  }
  INFO("regenerate with: DAGADVISOR_UPDATE_DOCS=1 unit_exporter \"[docs]\"");
  CHECK(dagadvisor::testing::readFile(docsPath()) == rendered);
}

TEST_CASE("the metrics table has one row per catalogued metric, name backticked first") {
  const std::string doc = renderMetricsMarkdown();
  const std::regex row(
      R"(^\| `(dagadvisor_[a-z_]+)` \| (counter|gauge|histogram) \| ([a-z_, ]+) \| .+ \|$)");
  std::set<std::string> names;
  std::istringstream lines(doc);
  for (std::string l; std::getline(lines, l);) {
    std::smatch m;
    if (std::regex_match(l, m, row)) {
      names.insert(m[1].str());
      CHECK(m[3].str().rfind("cluster", 0) == 0);
    }
  }
  CHECK(names.size() == metricCatalog().size());
  for (const auto& spec : metricCatalog()) {
    CHECK(names.count(std::string(spec.name)) == 1);
  }
}
