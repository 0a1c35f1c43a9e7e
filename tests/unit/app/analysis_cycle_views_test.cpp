#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <variant>

#include "analysis/detectors/capacity_shortfall.h"
#include "analysis/detectors/gpu_node_hoarding.h"
#include "analysis/detectors/stranded_resources.h"
#include "app/analysis_cycle.h"
#include "app/setup.h"
#include "common/log.h"
#include "exporter/metrics_handler.h"
#include "exporter/report_collector.h"
#include "report/report_text.h"
#include "support/test_support.h"
#include "unit/sources/temp_dir.h"

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
  auto report = app::runAnalysisCycle(*setup->reader, config, *setup->recorded_at, clock, nullptr);
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

namespace {

namespace analysis = dagadvisor::analysis;

// The pods a finding of the three pending-pod kinds names, "namespace/name".
std::vector<std::string> podsNamed(const analysis::Finding& f) {
  std::vector<std::string> out;
  if (const auto* h = f.evidence.get<analysis::GpuNodeHoardingEvidence>()) {
    for (const auto& pod : h->pending_gpu_pods) {
      out.push_back(pod.namespace_ + "/" + pod.pod);
    }
  } else if (const auto* s = f.evidence.get<analysis::StrandedResourcesEvidence>()) {
    if (const auto* cluster = std::get_if<analysis::ClusterFragmentation>(&s->scope)) {
      out = cluster->pods;
    }
  } else if (const auto* c = f.evidence.get<analysis::CapacityShortfallEvidence>()) {
    out = c->pods;
  }
  return out;
}

}  // namespace

TEST_CASE("the bundled scenario diagnoses each pending pod once and the advice agrees") {
  const auto report = analyseDefaultScenario();
  std::map<std::string, std::string> kind_of_pod;
  std::map<std::string, std::size_t> named_by_kind;
  std::optional<analysis::DiagnosisCounts> counts;
  std::int64_t gpus_unblocked = 0;
  for (const analysis::Finding& f : report->findings) {
    for (const std::string& pod : podsNamed(f)) {
      const auto [it, first] = kind_of_pod.emplace(pod, f.kind);
      INFO(pod << " named by " << f.kind << " and " << it->second);
      CHECK((first || it->second == f.kind));  // no pod in two kinds' findings
      ++named_by_kind[f.kind];
    }
    if (const auto* h = f.evidence.get<analysis::GpuNodeHoardingEvidence>()) {
      counts = h->diagnosis;
      gpus_unblocked += h->gpus_unblocked_by_moving;
    }
  }
  REQUIRE(counts.has_value());
  std::size_t sum = 0;
  for (std::size_t c : counts->by_cause) {
    sum += c;
  }
  CHECK(counts->pending_pods == report->summary.pending_pods);
  CHECK(sum == counts->pending_pods);
  // Each kind names exactly the pods of its cause (fewer than the lists' bound here).
  CHECK(named_by_kind["gpu-node-hoarding"] == counts->of(analysis::PendingCause::kHoarding));
  CHECK(named_by_kind["capacity-shortfall"] == counts->of(analysis::PendingCause::kCapacity));
  CHECK(named_by_kind["stranded-resources"] == counts->of(analysis::PendingCause::kFragmentation));
  // By hand: 7 pending pods of 2 GPUs, 12 cores, 56 GiB; the 4 GPU nodes have 2, 4, 2, 2 GPUs
  // free and room for 1, 2, 1, 1 of them once the non-DaemonSet pods leave. 5 pods take all 10
  // free GPUs; the other 2 need 4 GPUs that no node has: one more 4-GPU node (31.9 cores, 121
  // GiB holds both).
  CHECK(counts->of(analysis::PendingCause::kHoarding) == 5);
  CHECK(counts->of(analysis::PendingCause::kCapacity) == 2);
  CHECK(gpus_unblocked == 10);
  std::set<std::string> ids;
  for (const auto& rec : report->recommendations) {
    ids.insert(rec.id);
  }
  bool hoarding_reported = false;
  for (const auto& rec : report->recommendations) {
    hoarding_reported = hoarding_reported || rec.kind == "gpu-node-hoarding";
    const json related = rec.evidence.contains("related") ? rec.evidence.at("related") : json{};
    for (const std::string id : {"gpu-node-hoarding", "stranded-resources", "capacity-shortfall"}) {
      if (related.contains(id)) {
        INFO(rec.kind << " points at " << related.at(id));
        CHECK(ids.count(related.at(id).get<std::string>()) == 1);  // the one it names is there
      }
    }
    if (rec.kind == "capacity-shortfall") {
      CHECK_THAT(rec.title, Catch::Contains(": 1 node(s) missing"));
    }
  }
  REQUIRE(hoarding_reported);
  for (const auto& rec : report->recommendations) {
    CHECK_THAT(rec.action, !Catch::Contains("MostAllocated"));  // it would feed the hoarding
  }
}

TEST_CASE("a cycle at debug level logs the time of each of its stages, in order") {
  const dagadvisor::testing::TempDir dir;
  const std::string path = dir / "cycle.log";
  std::FILE* file = std::fopen(path.c_str(), "w");
  REQUIRE(file != nullptr);
  dagadvisor::log::setOutput(file);
  dagadvisor::log::setFormat(dagadvisor::log::Format::kLogfmt);  // the fields read below
  dagadvisor::log::setLevel(dagadvisor::log::Level::kDebug);
  analyseDefaultScenario();
  dagadvisor::log::setLevel(dagadvisor::log::Level::kInfo);
  dagadvisor::log::setOutput(nullptr);
  std::fclose(file);
  const std::string text = dagadvisor::testing::readFile(path);
  const auto line_at = text.find("msg=\"cycle stages (ms)\"");
  REQUIRE(line_at != std::string::npos);
  const std::string line = text.substr(line_at, text.find('\n', line_at) - line_at);
  std::size_t from = 0;
  for (const char* stage : {" fetch=", " runs=", " graphs=", " network=", " detectors=", " advice=",
                            " predictions=", " report="}) {
    INFO(stage << " in " << line);
    const auto at = line.find(stage, from);
    CHECK(at != std::string::npos);
    from = at == std::string::npos ? from : at;
  }
}
