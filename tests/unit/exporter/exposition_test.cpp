#include <prometheus/registry.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "exporter/metrics_handler.h"
#include "exporter/report_collector.h"
#include "exporter/self_metrics.h"
#include "unit/report/sample_report.h"

using namespace dagadvisor::exporter;
using ReportPtr = std::shared_ptr<const dagadvisor::report::AnalysisReport>;
namespace t = dagadvisor::testing;

namespace {

// The value of the sample whose line starts with `series` ("name{labels}"), if present.
std::optional<double> sample(const std::string& text, const std::string& series) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(series + " ", 0) == 0) {
      return std::stod(line.substr(series.size() + 1));
    }
  }
  return std::nullopt;
}

struct Exporter {
  std::shared_ptr<prometheus::Registry> registry = std::make_shared<prometheus::Registry>();
  SelfMetrics self{registry, "prod-eu", "1.2.3"};
  std::vector<ReportPtr> reports;
  MetricsHandler handler;

  explicit Exporter(std::size_t top_runs = 50) {
    handler.add(registry);
    handler.add(std::make_shared<ReportCollector>([this] { return reports; }, top_runs));
  }
  std::string render() {
    auto text = handler.render();
    REQUIRE(text.ok());
    return *text;
  }
};

// Runs `promtool check metrics` on the text; nullopt when promtool is not installed.
std::optional<std::pair<int, std::string>> promtoolCheck(const std::string& text) {
  const char* promtool = "/usr/bin/promtool";
  if (!std::filesystem::exists(promtool)) {
    WARN("promtool not found at /usr/bin/promtool; exposition lint skipped");
    return std::nullopt;
  }
  const auto path = std::filesystem::temp_directory_path() /
                    ("dagadvisor_exposition_" + std::to_string(::getpid()) + ".prom");
  std::ofstream(path) << text;
  const std::string cmd = std::string(promtool) + " check metrics < " + path.string() + " 2>&1";
  FILE* pipe = ::popen(cmd.c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::string output;
  char buf[512];
  while (std::fgets(buf, sizeof buf, pipe) != nullptr) {
    output += buf;
  }
  const int status = ::pclose(pipe);
  std::filesystem::remove(path);
  return std::make_pair(WEXITSTATUS(status), output);
}

}  // namespace

TEST_CASE("the exposition of a sample report has the expected series and values") {
  Exporter e;
  const auto report = t::sampleReport();
  e.reports = {report};
  e.self.recordCycle(*report);
  e.self.setStale(false, 2.5);
  const std::string text = e.render();
  INFO(text);

  CHECK(sample(text, R"(dagadvisor_build_info{cluster="prod-eu",version="1.2.3"})") == 1);
  CHECK(sample(text, R"(dagadvisor_cycles_total{cluster="prod-eu",result="success"})") == 1);
  CHECK(sample(text, R"(dagadvisor_cycles_total{cluster="prod-eu",result="failure"})") == 0);
  CHECK(sample(text, R"(dagadvisor_cycle_duration_seconds_count{cluster="prod-eu"})") == 1);
  CHECK(sample(text, R"(dagadvisor_cycle_duration_seconds_sum{cluster="prod-eu"})") == 0.42);
  CHECK(sample(text, R"(dagadvisor_last_successful_cycle_timestamp_seconds{cluster="prod-eu"})") ==
        Approx(1795856402));
  CHECK(sample(text, R"(dagadvisor_analysis_stale{cluster="prod-eu"})") == 0);
  CHECK(sample(text, R"(dagadvisor_data_age_seconds{cluster="prod-eu"})") == 2.5);
  const std::string src = R"(cluster="prod-eu",source="prometheus http://127.0.0.1:9090")";
  CHECK(sample(text, "dagadvisor_source_up{" + src + "}") == 1);
  CHECK(sample(text, "dagadvisor_source_queries_total{" + src + "}") == 12);
  CHECK(sample(text, "dagadvisor_source_response_bytes_total{" + src + "}") == 34567);
  CHECK(
      sample(
          text,
          R"(dagadvisor_detector_duration_seconds{cluster="prod-eu",detector="gpu_node_hoarding"})") ==
      0.012);
  CHECK(sample(text, R"(dagadvisor_detector_success{cluster="prod-eu",detector="dag_stacking"})") ==
        0);
  CHECK(sample(text, R"(dagadvisor_config_last_reload_successful{cluster="prod-eu"})") == 1);

  CHECK(sample(text, R"(dagadvisor_cluster_nodes{cluster="prod-eu"})") == 12);
  CHECK(sample(text, R"(dagadvisor_cluster_gpu_nodes{cluster="prod-eu"})") == 4);
  CHECK(sample(text, R"(dagadvisor_cluster_pods{cluster="prod-eu"})") == 340);
  CHECK(sample(text, R"(dagadvisor_pending_pods{cluster="prod-eu"})") == 7);
  CHECK(sample(text, R"(dagadvisor_gpus_allocatable{cluster="prod-eu"})") == 32);
  CHECK(sample(text, R"(dagadvisor_gpus_requested{cluster="prod-eu"})") == 20);
  CHECK(
      sample(
          text,
          R"(dagadvisor_findings{cluster="prod-eu",kind="gpu-node-hoarding",severity="warning"})") ==
      1);
  CHECK(
      sample(
          text,
          R"(dagadvisor_recommendations_active{cluster="prod-eu",kind="dag-stacking",severity="warning"})") ==
      1);
  CHECK(sample(text, R"(dagadvisor_gpu_node_hoarded{cluster="prod-eu",node="gpu-a"})") == 1);
  CHECK(sample(text, R"(dagadvisor_gpu_node_hoarded{cluster="prod-eu",node="gpu-b"})") == 1);
  CHECK(sample(text, R"(dagadvisor_gpu_node_free_gpus{cluster="prod-eu",node="gpu-a"})") == 6);
  CHECK(sample(text, R"(dagadvisor_gpu_node_free_gpus{cluster="prod-eu",node="gpu-b"})") == 2);
  CHECK(sample(text, R"(dagadvisor_gpu_node_non_gpu_cpu_share{cluster="prod-eu",node="gpu-a"})") ==
        0.82);
  CHECK(sample(text, R"(dagadvisor_gpu_node_non_gpu_cpu_share{cluster="prod-eu",node="gpu-b"})") ==
        0.25);
  const std::string ml = R"(cluster="prod-eu",namespace="ml",dag="train",run="2026-11-28")";
  CHECK(sample(text, "dagadvisor_dag_run_makespan_seconds{" + ml + "}") == 7200);
  CHECK(sample(text, "dagadvisor_dag_run_critical_path_seconds{" + ml + "}") == 3600);
  CHECK(sample(text, "dagadvisor_dag_run_efficiency_ratio{" + ml + "}") == 0.5);
}

TEST_CASE("the exposition passes promtool check metrics") {
  Exporter e;
  const auto report = t::sampleReport();
  e.reports = {report};
  e.self.recordCycle(*report);
  e.self.recordCycleFailure("prometheus http://127.0.0.1:9090", "connection refused");
  const auto result = promtoolCheck(e.render());
  if (result) {
    INFO(result->second);
    CHECK(result->first == 0);
  }
}

TEST_CASE("a failed cycle counts a failure and marks the source down") {
  Exporter e;
  e.self.recordCycleFailure("prometheus http://x", "timeout");
  e.self.setStale(true, 400);
  const std::string text = e.render();
  CHECK(sample(text, R"(dagadvisor_cycles_total{cluster="prod-eu",result="failure"})") == 1);
  CHECK(sample(text, R"(dagadvisor_source_up{cluster="prod-eu",source="prometheus http://x"})") ==
        0);
  CHECK(sample(text, R"(dagadvisor_analysis_stale{cluster="prod-eu"})") == 1);
  CHECK(sample(text, R"(dagadvisor_data_age_seconds{cluster="prod-eu"})") == 400);
  // no report yet: no report-derived series at all
  CHECK(text.find("dagadvisor_cluster_nodes") == std::string::npos);
}

TEST_CASE("each query's cost is a gauge; the backend's figures only when it reported them") {
  Exporter e;
  auto report = std::make_shared<dagadvisor::report::AnalysisReport>();
  dagadvisor::report::QueryCostRow measured{"pod_info", 2048, 9, 0.0002, 0.0003, 123};
  dagadvisor::report::QueryCostRow unmeasured{"pod_usage", 64, 0, {}, {}, {}};
  report->query_costs = {measured, unmeasured};
  e.self.recordCycle(*report);
  const std::string text = e.render();
  const auto of = [&](const std::string& metric, const std::string& query) {
    return sample(text, metric + R"({cluster="prod-eu",query=")" + query + R"(",read="full"})");
  };
  CHECK(of("dagadvisor_source_query_response_bytes", "pod_info") == 2048);
  CHECK(of("dagadvisor_source_query_series", "pod_info") == 9);
  CHECK(of("dagadvisor_source_query_eval_seconds", "pod_info") == 0.0002);
  CHECK(of("dagadvisor_source_query_exec_seconds", "pod_info") == 0.0003);
  CHECK(of("dagadvisor_source_query_samples", "pod_info") == 123);
  CHECK(of("dagadvisor_source_query_response_bytes", "pod_usage") == 64);
  CHECK(of("dagadvisor_source_query_series", "pod_usage") == 0);
  CHECK_FALSE(of("dagadvisor_source_query_eval_seconds", "pod_usage"));
  CHECK_FALSE(of("dagadvisor_source_query_samples", "pod_usage"));
}

TEST_CASE("query costs are kept per read kind; a query the last read of a kind skipped is absent") {
  Exporter e;
  using Row = dagadvisor::report::QueryCostRow;
  const auto cycle = [&](std::vector<Row> rows) {
    auto report = std::make_shared<dagadvisor::report::AnalysisReport>();
    report->query_costs = std::move(rows);
    e.self.recordCycle(*report);
    return e.render();
  };
  const auto bytes = [](const std::string& text, const std::string& query,
                        const std::string& read) {
    return sample(text, R"(dagadvisor_source_query_response_bytes{cluster="prod-eu",query=")" +
                            query + R"(",read=")" + read + R"("})");
  };
  cycle({{"pod_info", 5000, 50, 0.5, 0.6, 900, "full"},
         {"pod_usage", 7000, 40, 0.7, 0.8, 1000, "full"},
         {"pod_seen", 300, 50, 0.1, 0.1, 100, "full"}});
  std::string text = cycle({{"pod_info", 100, 2, 0.01, 0.02, 9, "window"},
                            {"pod_usage", 900, 40, 0.2, 0.3, 90, "window"}});
  CHECK(bytes(text, "pod_info", "full") == 5000);  // the last full read's figures stay
  CHECK(bytes(text, "pod_info", "window") == 100);
  CHECK(bytes(text, "pod_usage", "window") == 900);
  // The next window read skips pod_usage (kept between refreshes), and pod_info reports no stats.
  text = cycle({{"pod_info", 120, 3, {}, {}, {}, "window"}});
  CHECK(bytes(text, "pod_info", "window") == 120);
  CHECK_FALSE(bytes(text, "pod_usage", "window"));
  CHECK_FALSE(sample(
      text,
      R"(dagadvisor_source_query_eval_seconds{cluster="prod-eu",query="pod_info",read="window"})"));
  CHECK(bytes(text, "pod_usage", "full") == 7000);
  CHECK(
      sample(
          text,
          R"(dagadvisor_source_query_eval_seconds{cluster="prod-eu",query="pod_usage",read="full"})") ==
      0.7);
}

TEST_CASE("per-run series are bounded to the top runs by makespan") {
  Exporter e(2);
  e.reports = {t::sampleReport()};
  const std::string text = e.render();
  CHECK(
      sample(
          text,
          R"(dagadvisor_dag_run_makespan_seconds{cluster="prod-eu",namespace="ml",dag="train",run="2026-11-28"})") ==
      7200);
  CHECK(
      sample(
          text,
          R"(dagadvisor_dag_run_makespan_seconds{cluster="prod-eu",namespace="etl",dag="daily",run="r2"})") ==
      900);
  CHECK_FALSE(sample(
      text,
      R"(dagadvisor_dag_run_makespan_seconds{cluster="prod-eu",namespace="etl",dag="daily",run="r1"})"));
}

TEST_CASE("series of a problem that went away vanish with the next report") {
  Exporter e;
  e.reports = {t::sampleReport()};
  CHECK(sample(e.render(), R"(dagadvisor_gpu_node_hoarded{cluster="prod-eu",node="gpu-a"})"));
  auto fixed = std::make_shared<dagadvisor::report::AnalysisReport>(*t::sampleReport());
  fixed->findings.erase(fixed->findings.begin());
  e.reports = {fixed};
  const std::string text = e.render();
  CHECK_FALSE(sample(text, R"(dagadvisor_gpu_node_hoarded{cluster="prod-eu",node="gpu-a"})"));
  CHECK(sample(text, R"(dagadvisor_gpu_node_hoarded{cluster="prod-eu",node="gpu-b"})") == 1);
}

TEST_CASE("a GPU node held only by DaemonSets is no hoarded node") {
  Exporter e;
  auto report = std::make_shared<dagadvisor::report::AnalysisReport>(*t::sampleReport());
  dagadvisor::analysis::GpuNodeHoardingEvidence daemons;
  daemons.node = "gpu-c";
  daemons.hold = "daemonsets";
  dagadvisor::analysis::Finding f = dagadvisor::analysis::findingOf(std::move(daemons));
  f.target = "node/gpu-c";
  report->findings.push_back(std::move(f));
  e.reports = {report};
  const std::string text = e.render();
  CHECK(sample(text, R"(dagadvisor_gpu_node_hoarded{cluster="prod-eu",node="gpu-a"})") == 1);
  CHECK_FALSE(sample(text, R"(dagadvisor_gpu_node_hoarded{cluster="prod-eu",node="gpu-c"})"));
}

TEST_CASE("two clusters share one family per metric and one registry") {
  Exporter e;
  SelfMetrics other(e.registry, "prod-us", "1.2.3");
  auto us = std::make_shared<dagadvisor::report::AnalysisReport>(*t::sampleReport());
  us->cluster = "prod-us";
  us->summary.nodes = 30;
  e.reports = {t::sampleReport(), us, nullptr};
  other.recordCycle(*us);
  const std::string text = e.render();
  CHECK(sample(text, R"(dagadvisor_cluster_nodes{cluster="prod-eu"})") == 12);
  CHECK(sample(text, R"(dagadvisor_cluster_nodes{cluster="prod-us"})") == 30);
  CHECK(sample(text, R"(dagadvisor_cycles_total{cluster="prod-us",result="success"})") == 1);
  CHECK(sample(text, R"(dagadvisor_cycles_total{cluster="prod-eu",result="success"})") == 0);
  std::size_t type_lines = 0;
  for (auto pos = text.find("# TYPE dagadvisor_cluster_nodes "); pos != std::string::npos;
       pos = text.find("# TYPE dagadvisor_cluster_nodes ", pos + 1)) {
    ++type_lines;
  }
  CHECK(type_lines == 1);
  const auto result = promtoolCheck(text);
  if (result) {
    INFO(result->second);
    CHECK(result->first == 0);
  }
}

TEST_CASE("scrapes are served the text of the last refresh, not rendered per scrape") {
  Exporter e;
  const auto before = e.handler.cached();  // nothing refreshed yet: rendered on first use
  REQUIRE(before->ok());
  CHECK_FALSE(sample(**before, R"(dagadvisor_gpu_node_hoarded{cluster="prod-eu",node="gpu-a"})"));
  e.reports = {t::sampleReport()};
  CHECK(e.handler.cached() == before);  // the same text until the loop refreshes
  e.handler.refresh();
  const auto after = e.handler.cached();
  REQUIRE(after->ok());
  CHECK(sample(**after, R"(dagadvisor_gpu_node_hoarded{cluster="prod-eu",node="gpu-a"})") == 1);
  CHECK(e.handler.cached() == after);
}

TEST_CASE(
    "a detector that judged and found nothing exports zero; one that could not stays absent") {
  Exporter e;
  auto report = std::make_shared<dagadvisor::report::AnalysisReport>(*t::sampleReport());
  dagadvisor::analysis::DetectorRun judged;
  judged.name = "stranded-resources";
  dagadvisor::analysis::DetectorRun blind;
  blind.name = "cohort-comparison";
  blind.no_advice_reason = "fewer than two cohorts";
  dagadvisor::analysis::DetectorRun failed;
  failed.name = "idle-slots";
  failed.ok = false;
  report->detectors = {judged, blind, failed};
  e.reports = {report};
  const std::string text = e.render();
  const auto findings = [&](const std::string& kind, const std::string& severity) {
    return sample(text, "dagadvisor_findings{cluster=\"prod-eu\",kind=\"" + kind +
                            "\",severity=\"" + severity + "\"}");
  };
  CHECK(findings("stranded-resources", "warning") == 0);
  CHECK(findings("stranded-resources", "info") == 0);
  CHECK_FALSE(findings("cohort-comparison", "info"));
  CHECK_FALSE(findings("idle-slots", "info"));
}

TEST_CASE("an unfinished run exports its elapsed time, never as a makespan") {
  auto report = t::sampleReport();
  for (auto& run : report->runs) {
    run.finished = run.dag != "train";
  }
  Exporter e;
  e.reports = {report};
  const std::string text = e.render();
  const std::string ml = R"(cluster="prod-eu",namespace="ml",dag="train",run="2026-11-28")";
  CHECK_FALSE(sample(text, "dagadvisor_dag_run_makespan_seconds{" + ml + "}"));
  CHECK(sample(text, "dagadvisor_dag_run_elapsed_seconds{" + ml + "}") == 7200);
  const std::string etl = R"(cluster="prod-eu",namespace="etl",dag="daily",run="r2")";
  CHECK(sample(text, "dagadvisor_dag_run_makespan_seconds{" + etl + "}") == 900);
  CHECK(sample(text, "dagadvisor_dag_run_elapsed_seconds{" + etl + "}") == 900);
}
