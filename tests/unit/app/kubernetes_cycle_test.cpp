#include <algorithm>
#include <catch2/catch.hpp>
#include <memory>
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

const std::string kPendingPodsPath = "/api/v1/pods?fieldSelector=status.phase%3DPending";
const std::string kPriorityClassesPath = "/apis/scheduling.k8s.io/v1/priorityclasses";

// The API server of a cluster with Argo but without Tekton; `pending` answers the pending pods'
// LIST and `classes` the PriorityClasses' (both 404 when empty).
class ArgoOnlyCluster final : public sources::KubeListSource {
 public:
  std::vector<json> pending;
  std::vector<json> classes;

  Result<sources::KubeList> list(const std::string& path, const std::string&) override {
    sources::KubeList out;
    if (path == "/apis/argoproj.io/v1alpha1/workflows") {
      out.pages.push_back(listOf("WorkflowList", {hourlyReportsWorkflow()}));
    } else if (path == kPendingPodsPath && !pending.empty()) {
      out.pages.push_back(listOf("PodList", pending));
    } else if (path == kPriorityClassesPath && !classes.empty()) {
      out.pages.push_back(listOf("PriorityClassList", classes));
    } else {
      out.status = 404;
    }
    return out;
  }
  std::string describe() const override { return "argo-only cluster"; }

 private:
  static std::string listOf(const std::string& kind, const std::vector<json>& items) {
    return json{{"kind", kind}, {"items", items}}.dump();
  }
};

// A pending Pod as the API server answers it, with a required node affinity into zone `zone`.
json pendingPodInZone(const dagadvisor::model::Pod& pod, const std::string& zone) {
  const json requirement = {
      {"key", "topology.kubernetes.io/zone"}, {"operator", "In"}, {"values", {zone}}};
  json spec = {{"priority", 0},
               {"affinity",
                {{"nodeAffinity",
                  {{"requiredDuringSchedulingIgnoredDuringExecution",
                    {{"nodeSelectorTerms", {{{"matchExpressions", {requirement}}}}}}}}}}}};
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", pod.name}, {"namespace", pod.namespace_}}},
          {"spec", std::move(spec)},
          {"status", {{"phase", "Pending"}}}};
}

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

using ReportPtr = std::shared_ptr<const dagadvisor::report::AnalysisReport>;

// The default scenario as a snapshot source.
app::SourceSetup openDefaultScenario() {
  dagadvisor::config::Config config;
  config.sources.snapshot_dir = kDefaultScenario;
  auto scenario = app::openSource(config);
  REQUIRE(scenario.ok());
  return std::move(scenario).value();
}

struct RecordedAndReplayed {
  ReportPtr recorded;
  ReportPtr replayed;
  std::size_t lists = 0;  // LISTs recorded
};

// The default scenario recorded with `cluster`'s LISTs into `snap`, then replayed offline with
// the default settings (sources.kubernetes.enabled is false): the report of each cycle. The
// scenario is opened here: its reader records into the writer, which ends with this call.
RecordedAndReplayed recordAndReplay(sources::KubeListSource& cluster, const std::string& snap) {
  app::SourceSetup scenario = openDefaultScenario();
  const dagadvisor::UnixSeconds at = *scenario.recorded_at;
  dagadvisor::ManualClock clock(at);
  dagadvisor::config::Config config;
  config.sources.kubernetes.enabled = true;
  sources::SnapshotWriter writer(scenario.reader->recordedAnswers(), snap, &clock);
  scenario.reader->recordInto(writer);
  const auto recording = app::objectSources(config, &writer.recordKubernetes(cluster));
  auto recorded = app::runAnalysisCycle(*scenario.reader, config, at, clock, nullptr, recording);
  REQUIRE(recorded.ok());
  REQUIRE(writer.finish(at).ok());

  dagadvisor::config::Config replay_config;
  replay_config.sources.snapshot_dir = snap;
  auto replay = app::openSource(replay_config);
  REQUIRE(replay.ok());
  REQUIRE(replay->kubernetes != nullptr);
  const auto objects = app::objectSources(replay_config, replay->kubernetes.get());
  auto report = app::runAnalysisCycle(*replay->reader, replay_config, at, clock, nullptr, objects);
  REQUIRE(report.ok());
  return {*recorded, *report, writer.recordedKubeLists()};
}

}  // namespace

TEST_CASE("a snapshot with a Kubernetes part replays exact Argo edges through the cycle",
          "[app][kubernetes]") {
  dagadvisor::testing::TempDir dir;
  const std::string snap = dir / "snap";
  app::SourceSetup scenario = openDefaultScenario();
  REQUIRE(scenario.kubernetes == nullptr);  // the scenario was recorded without Kubernetes
  const dagadvisor::UnixSeconds at = *scenario.recorded_at;
  dagadvisor::ManualClock clock(at);

  // Without objects, the run's dependencies are guessed from timing.
  auto plain = app::runAnalysisCycle(*scenario.reader, {}, at, clock, nullptr);
  REQUIRE(plain.ok());
  CHECK_FALSE(edges(runOf(**plain, kRunId), true).empty());
  CHECK(edges(runOf(**plain, kRunId), false).empty());

  // Record the scenario's Prometheus part plus the cluster's LISTs, and replay them offline.
  ArgoOnlyCluster cluster;
  const RecordedAndReplayed cycles = recordAndReplay(cluster, snap);
  const ReportPtr& recorded = cycles.recorded;
  const ReportPtr& report = cycles.replayed;

  const auto& run = runOf(*report, kRunId);
  const EdgeSet declared = {{"fetch", "agg-1"},  {"fetch", "agg-2"},  {"fetch", "agg-3"},
                            {"agg-1", "render"}, {"agg-2", "render"}, {"agg-3", "render"}};
  CHECK(edges(run, false) == declared);
  CHECK(edges(run, true).empty());
  CHECK(run.edges == declared.size());
  CHECK(edges(runOf(*recorded, kRunId), false) == declared);
  // The other hourly runs have no object: still inferred.
  const auto other = std::find_if(report->runs.begin(), report->runs.end(), [](const auto& r) {
    return r.engine == "argo" && r.id != kRunId && r.tasks > 1;
  });
  REQUIRE(other != report->runs.end());
  CHECK_FALSE(edges(*other, true).empty());
  // Tekton's absence is a data-quality warning, the cycle still succeeded; a replay says the
  // resource was absent when recorded, not that it is not installed now.
  CHECK(std::any_of(report->warnings.begin(), report->warnings.end(), [](const auto& w) {
    return w.find("Tekton PipelineRuns: absent when recorded from ") != std::string::npos;
  }));
}

TEST_CASE("a pending pod whose required node affinity no node satisfies is blocked by constraints",
          "[app][kubernetes][affinity]") {
  dagadvisor::testing::TempDir dir;
  const std::string snap = dir / "snap";
  app::SourceSetup scenario = openDefaultScenario();
  const dagadvisor::UnixSeconds at = *scenario.recorded_at;
  dagadvisor::ManualClock clock(at);
  dagadvisor::ingestion::FetchStats stats;
  auto snapshot = scenario.reader->read(at, stats);
  REQUIRE(snapshot.ok());
  REQUIRE_FALSE(snapshot->pendingPods().empty());
  const dagadvisor::model::Pod pinned = snapshot->pod(snapshot->pendingPods().front());

  // Recorded with the pending pod's LIST (a zone no node is in) and one PriorityClass.
  ArgoOnlyCluster cluster;
  cluster.pending.push_back(pendingPodInZone(pinned, "eu-west-1x"));
  cluster.classes.push_back(
      {{"metadata", {{"name", "batch-low"}}}, {"value", 100}, {"globalDefault", false}});
  const RecordedAndReplayed cycles = recordAndReplay(cluster, snap);
  // Workflows, Tekton v1 and v1beta1 (404: not installed), PriorityClasses, pending pods.
  CHECK(cycles.lists == 5);
  const ReportPtr& recorded = cycles.recorded;
  const ReportPtr& report = cycles.replayed;
  auto plain = app::runAnalysisCycle(*scenario.reader, {}, at, clock, nullptr);
  REQUIRE(plain.ok());

  // Every kind that carries the diagnosis sees the pod as constrained, by its affinity.
  const auto diagnosisOf = [](const dagadvisor::report::AnalysisReport& r) {
    for (const auto& f : r.findings) {
      const json evidence = f.evidenceJson();
      if (evidence.contains("diagnosis")) {
        return evidence["diagnosis"];
      }
    }
    return json();
  };
  const json with_api = diagnosisOf(*report);
  const json without = diagnosisOf(**plain);
  REQUIRE(with_api.is_object());
  REQUIRE(without.is_object());
  CHECK(with_api["constraints"].get<int>() == without["constraints"].get<int>() + 1);
  CHECK(with_api["pending_pods"] == without["pending_pods"]);
  const json& constrained = with_api["constrained"];
  const auto named = std::find_if(constrained.begin(), constrained.end(),
                                  [&](const json& c) { return c["pod"] == pinned.key(); });
  REQUIRE(named != constrained.end());
  CHECK((*named)["excluded_by"].get<std::string>() ==
        "required node affinity (topology.kubernetes.io/zone In [eu-west-1x])");
  const json& checked = with_api["constraints_checked"]["node_affinity"];
  CHECK(checked["source"] == "Kubernetes API (pending pods)");
  CHECK(checked["pods"] == 1);
  CHECK(checked["required"] == 1);
  CHECK(without["constraints_checked"]["node_affinity"]["source"] == "not checked");
  CHECK(diagnosisOf(*recorded)["constraints"] == with_api["constraints"]);
  // The replay found both scheduling LISTs in the snapshot.
  CHECK_FALSE(std::any_of(report->warnings.begin(), report->warnings.end(), [](const auto& w) {
    return w.find("priorityclasses") != std::string::npos || w.find("/pods") != std::string::npos;
  }));
}
