#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "app/analysis_cycle.h"
#include "app/setup.h"
#include "exporter/metrics_handler.h"
#include "exporter/report_collector.h"
#include "report/report_text.h"
#include "support/test_support.h"

using nlohmann::json;
namespace app = dagadvisor::app;

namespace {

const std::string kScenario = std::string(DAGADVISOR_SOURCE_DIR) + "/config/scenarios/default";

std::shared_ptr<const dagadvisor::report::AnalysisReport> analyseDefaultScenario() {
  dagadvisor::config::Config config;
  config.sources.snapshot_dir = kScenario;
  auto setup = app::openSource(config);
  REQUIRE(setup.ok());
  REQUIRE(setup->recorded_at.has_value());
  dagadvisor::ManualClock clock(*setup->recorded_at);
  auto report = app::runAnalysisCycle(*setup->source, config, *setup->recorded_at, clock, nullptr);
  REQUIRE(report.ok());
  return *report;
}

}  // namespace

TEST_CASE("node rows agree with the simulator's ground truth on the hoarded GPU nodes") {
  const auto report = analyseDefaultScenario();
  REQUIRE(report->nodes.size() == report->summary.nodes);
  CHECK(std::is_sorted(report->nodes.begin(), report->nodes.end(),
                       [](const auto& a, const auto& b) { return a.name < b.name; }));
  const json truth = json::parse(dagadvisor::testing::readFile(kScenario + "/ground_truth.json"));
  REQUIRE_FALSE(truth.at("hoarded_gpu_nodes").empty());
  for (const json& node : truth.at("hoarded_gpu_nodes")) {
    const std::string name = node.at("node");
    INFO(name);
    const auto row = std::find_if(report->nodes.begin(), report->nodes.end(),
                                  [&](const auto& n) { return n.name == name; });
    REQUIRE(row != report->nodes.end());
    CHECK(row->allocatable.gpus - row->requested.gpus == node.at("free_gpus").get<int>());
    CHECK((row->allocatable.cpu_millis - row->requested.cpu_millis) / 1000.0 ==
          Approx(node.at("free_cpu").get<double>()).margin(0.01));
    CHECK(row->pods > 0);
  }
}

TEST_CASE("run summaries carry one task row per task, the critical path marked, edges by id") {
  const auto report = analyseDefaultScenario();
  REQUIRE_FALSE(report->runs.empty());
  for (const auto& run : report->runs) {
    INFO(run.id);
    REQUIRE(run.task_rows.size() == run.tasks);
    std::set<std::string> ids;
    for (const auto& t : run.task_rows) {
      ids.insert(t.id);
      CHECK(t.queue_seconds >= 0);
      CHECK(t.run_seconds >= 0);
      CHECK(t.slack_seconds >= -1e-9);
      if (t.created && t.started) {
        CHECK(*t.started >= *t.created);
      }
    }
    const auto critical = std::count_if(run.task_rows.begin(), run.task_rows.end(),
                                        [](const auto& t) { return t.on_critical_path; });
    CHECK(static_cast<std::size_t>(critical) == run.critical_path.size());
    for (const auto& id : run.critical_path) {
      CHECK(ids.count(id) == 1);
    }
    for (const auto& e : run.edge_rows) {
      CHECK(ids.count(e.parent) == 1);
      CHECK(ids.count(e.child) == 1);
    }
    CHECK(run.wait_share >= 0);
    CHECK(run.wait_share <= 1);
  }
}

TEST_CASE("the nodes view, /metrics and the stranded-resources findings agree on every node") {
  const auto report = analyseDefaultScenario();
  std::map<std::string, const dagadvisor::analysis::Finding*> findings;
  for (const auto& f : report->findings) {
    if (f.kind == "stranded-resources" && f.target.starts_with("node/")) {
      findings[f.target.substr(5)] = &f;
    }
  }
  // The bundled scenario strands nothing by this rule (its GPU nodes are held, not exhausted);
  // the detector sweep checks the same agreement on every simulator scenario.
  dagadvisor::exporter::MetricsHandler metrics;
  metrics.add(std::make_shared<dagadvisor::exporter::ReportCollector>([&] {
    return std::vector<std::shared_ptr<const dagadvisor::report::AnalysisReport>>{report};
  }));
  const auto text = metrics.render();
  REQUIRE(text.ok());
  for (const auto& row : report->nodes) {
    INFO(row.name);
    const auto found = findings.find(row.name);
    const std::string series = "dagadvisor_node_stranded_share{cluster=\"" + report->cluster +
                               "\",node=\"" + row.name + "\",resource=\"";
    if (found == findings.end()) {
      CHECK(row.stranded_resource.empty());
      CHECK(text->find(series) == std::string::npos);
      continue;
    }
    const json evidence = found->second->evidenceJson();
    double largest = 0;
    for (const auto& [key, value] : evidence.at("stranded").items()) {
      const std::string resource = key == "free_cpu_millis"     ? "cpu"
                                   : key == "free_memory_bytes" ? "memory"
                                                                : "gpu";
      largest = std::max(largest, evidence.at("free_share").at(resource).get<double>());
    }
    CHECK(row.stranded_share == Approx(largest));
    CHECK(text->find(series + row.stranded_resource + "\"}") != std::string::npos);
  }
}

TEST_CASE("the bundled scenario's text report fits one screen before the runs table") {
  const auto report = analyseDefaultScenario();
  REQUIRE_FALSE(report->recommendations.empty());
  const std::string text = dagadvisor::report::renderText(*report);
  const auto runs = text.find("\nRUNS (");
  REQUIRE(runs != std::string::npos);
  const auto lines =
      std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(runs), '\n');
  CHECK(lines <= 60);
  for (const auto& rec : report->recommendations) {  // every recommendation has its row
    CHECK(text.find(rec.id) < runs);
  }
  dagadvisor::report::TextOptions details;
  details.details = true;
  CHECK(dagadvisor::report::renderText(*report, details).find("patch:") != std::string::npos);
}
