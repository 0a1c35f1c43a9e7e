#include <algorithm>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <set>
#include <utility>

#include "app/analysis_cycle.h"
#include "app/setup.h"
#include "sources/snapshot/snapshot_writer.h"
#include "support/test_support.h"
#include "unit/sources/temp_dir.h"

using nlohmann::json;
namespace app = dagadvisor::app;
namespace sources = dagadvisor::sources;
using dagadvisor::Result;

namespace {

const std::string kDefaultScenario =
    std::string(DAGADVISOR_SOURCE_DIR) + "/config/scenarios/default";
const std::string kRun = "hourly-reports-22vss";
const std::string kRunId = "analytics/hourly-reports/" + kRun;

using EdgeSet = std::set<std::pair<std::string, std::string>>;

// The Argo Workflow the controller would hold for one of the scenario's hourly-reports runs,
// declaring fetch → agg-1, agg-2, agg-3 → render in status.nodes.
json hourlyReportsWorkflow() {
  const auto node = [](const std::string& task, std::vector<std::string> children) {
    return json{{"id", kRun + "-" + task}, {"name", kRun + "." + task},
                {"displayName", task},     {"type", "Pod"},
                {"phase", "Succeeded"},    {"children", json(children)}};
  };
  json nodes = json::object();
  nodes[kRun] = {
      {"id", kRun}, {"name", kRun}, {"type", "DAG"}, {"children", json::array({kRun + "-fetch"})}};
  nodes[kRun + "-fetch"] = node("fetch", {kRun + "-agg-1", kRun + "-agg-2", kRun + "-agg-3"});
  for (const char* agg : {"agg-1", "agg-2", "agg-3"}) {
    nodes[kRun + "-" + agg] = node(agg, {kRun + "-render"});
  }
  nodes[kRun + "-render"] = node("render", {});
  return {{"apiVersion", "argoproj.io/v1alpha1"},
          {"kind", "Workflow"},
          {"metadata", {{"name", kRun}, {"namespace", "analytics"}}},
          {"status", {{"nodes", nodes}}}};
}

// The API server of a cluster with Argo but without Tekton.
class ArgoOnlyCluster final : public sources::KubeListSource {
 public:
  Result<sources::KubeList> list(const std::string& path, const std::string&) override {
    sources::KubeList out;
    if (path == "/apis/argoproj.io/v1alpha1/workflows") {
      out.pages.push_back(
          json{{"kind", "WorkflowList"}, {"items", json::array({hourlyReportsWorkflow()})}}.dump());
    } else {
      out.status = 404;
    }
    return out;
  }
  std::string describe() const override { return "argo-only cluster"; }
};

const dagadvisor::report::RunSummary& runOf(const dagadvisor::report::AnalysisReport& report,
                                            const std::string& id) {
  auto it = std::find_if(report.runs.begin(), report.runs.end(),
                         [&](const auto& r) { return r.id == id; });
  INFO(id);
  REQUIRE(it != report.runs.end());
  return *it;
}

EdgeSet edges(const dagadvisor::report::RunSummary& run, bool inferred) {
  EdgeSet out;
  for (const auto& e : run.edge_rows) {
    if (e.inferred == inferred) {
      out.emplace(e.parent, e.child);
    }
  }
  return out;
}

}  // namespace

TEST_CASE("a snapshot with a Kubernetes part replays exact Argo edges through the cycle",
          "[app][kubernetes]") {
  dagadvisor::testing::TempDir dir;
  const std::string snap = dir / "snap";
  dagadvisor::config::Config config;
  config.sources.snapshot_dir = kDefaultScenario;
  auto scenario = app::openSource(config);
  REQUIRE(scenario.ok());
  REQUIRE(scenario->kubernetes == nullptr);  // the scenario was recorded without Kubernetes
  const dagadvisor::UnixSeconds at = *scenario->recorded_at;
  dagadvisor::ManualClock clock(at);

  // Without objects, the run's dependencies are guessed from timing.
  auto plain = app::runAnalysisCycle(*scenario->reader, config, at, clock, nullptr);
  REQUIRE(plain.ok());
  CHECK_FALSE(edges(runOf(**plain, kRunId), true).empty());
  CHECK(edges(runOf(**plain, kRunId), false).empty());

  // Record: the scenario's Prometheus part plus the cluster's LISTs.
  config.sources.kubernetes.enabled = true;
  ArgoOnlyCluster cluster;
  sources::SnapshotWriter writer(scenario->reader->recordedAnswers(), snap, &clock);
  scenario->reader->recordInto(writer);
  const auto recording = app::objectSources(config, &writer.recordKubernetes(cluster));
  auto recorded = app::runAnalysisCycle(*scenario->reader, config, at, clock, nullptr, recording);
  REQUIRE(recorded.ok());
  REQUIRE(writer.finish(at).ok());

  // Replay offline, with the default settings (sources.kubernetes.enabled is false).
  dagadvisor::config::Config replay_config;
  replay_config.sources.snapshot_dir = snap;
  auto replay = app::openSource(replay_config);
  REQUIRE(replay.ok());
  REQUIRE(replay->kubernetes != nullptr);
  const auto objects = app::objectSources(replay_config, replay->kubernetes.get());
  auto report = app::runAnalysisCycle(*replay->reader, replay_config, at, clock, nullptr, objects);
  REQUIRE(report.ok());

  const auto& run = runOf(**report, kRunId);
  const EdgeSet declared = {{"fetch", "agg-1"},  {"fetch", "agg-2"},  {"fetch", "agg-3"},
                            {"agg-1", "render"}, {"agg-2", "render"}, {"agg-3", "render"}};
  CHECK(edges(run, false) == declared);
  CHECK(edges(run, true).empty());
  CHECK(run.edges == declared.size());
  CHECK(edges(runOf(**recorded, kRunId), false) == declared);
  // The other hourly runs have no object: still inferred.
  const auto other = std::find_if(
      (*report)->runs.begin(), (*report)->runs.end(),
      [](const auto& r) { return r.engine == "argo" && r.id != kRunId && r.tasks > 1; });
  REQUIRE(other != (*report)->runs.end());
  CHECK_FALSE(edges(*other, true).empty());
  // Tekton's absence is a data-quality warning, the cycle still succeeded.
  CHECK(std::any_of((*report)->warnings.begin(), (*report)->warnings.end(), [](const auto& w) {
    return w.find("Tekton Pipelines is not installed") != std::string::npos;
  }));
}
