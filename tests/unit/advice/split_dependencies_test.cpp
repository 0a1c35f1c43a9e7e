#include "analysis/detectors/split_dependencies.h"

#include <yaml-cpp/yaml.h>

#include <catch2/catch.hpp>

#include "advice/recommender.h"
#include "unit/advice/patch_docs.h"

using namespace dagadvisor;
using nlohmann::json;

namespace {

analysis::Finding splitFinding(const std::string& dag, const std::string& run, int split, int cross,
                               double seconds, double critical_seconds,
                               analysis::LabelPairs selector = {}) {
  analysis::SplitDependenciesEvidence evidence;
  evidence.scope = {"science", dag, run, std::move(selector), {}};
  evidence.cross_zone_edges = static_cast<std::size_t>(cross);
  evidence.same_zone_split_edges = static_cast<std::size_t>(split - cross);
  evidence.estimated_transfer_seconds = seconds;
  evidence.critical_path_transfer_seconds = critical_seconds;
  analysis::Finding f = analysis::findingOf(std::move(evidence));
  f.severity = cross > 0 ? analysis::Severity::kWarning : analysis::Severity::kInfo;
  f.target = "run/science/" + dag + "/" + run;
  f.impact = seconds;
  return f;
}

}  // namespace

TEST_CASE("split runs of one DAG become one recommendation with a zone-affinity fragment",
          "[advice][split-dependencies]") {
  config::Config config;
  const std::vector<analysis::Finding> findings = {
      splitFinding("genome", "r1", 3, 3, 90, 60), splitFinding("genome", "2026-11-30", 2, 0, 10, 0),
      splitFinding("other", "r9", 4, 1, 45, 30)};
  const auto recs = advice::recommend(findings, config);
  REQUIRE(recs.size() == 2);
  const advice::Recommendation& rec = recs[0];  // 100 s of transfer ranks first
  CHECK(rec.kind == "split-dependencies");
  CHECK(rec.target == "dag/science/genome");
  CHECK(rec.instances ==
        std::vector<std::string>{"run/science/genome/r1", "run/science/genome/2026-11-30"});
  CHECK(rec.severity == analysis::Severity::kWarning);
  CHECK(rec.impact_score == Approx(100));
  CHECK(rec.evidence["split_node_edges"] == 5);
  CHECK(rec.evidence["cross_zone_edges"] == 3);
  CHECK(rec.evidence["max_critical_path_transfer_seconds"].get<double>() == Approx(60));
  CHECK_THAT(rec.impact, Catch::Contains("60 s"));
  CHECK(recs[1].target == "dag/science/other");

  // A documented pod-template fragment: spec.affinity to merge into each task's pod template.
  // A JSON patch appending one preferred term (other affinity terms stay), with the variants
  // that create the missing levels.
  const auto added = testing::addedValue(
      rec.patch_yaml, "/affinity/podAffinity/preferredDuringSchedulingIgnoredDuringExecution/-");
  REQUIRE(added.IsMap());
  CHECK(added["weight"].as<int>() == 100);
  const auto term = added["podAffinityTerm"];
  CHECK(term["topologyKey"].as<std::string>() == "topology.kubernetes.io/zone");
  CHECK(term["labelSelector"]["matchLabels"]["dag-id"].as<std::string>() == "genome");
  // The run id is a date: it must stay a quoted string, not become a timestamp or number.
  CHECK(term["labelSelector"]["matchLabels"]["dag-run"].Tag() == "!");
  CHECK(term["labelSelector"]["matchLabels"]["dag-run"].as<std::string>() == "2026-11-30");
  CHECK(YAML::LoadAll(rec.patch_yaml).size() == 4);
  CHECK_THAT(rec.patch_yaml, Catch::Contains("variant 4 of 4"));
}

TEST_CASE("split-dependencies advice follows renamed workflow labels and zone label",
          "[advice][split-dependencies]") {
  config::Config config;
  config.workflow_labels.dag_label = "pipeline";
  config.workflow_labels.run_label = "pipeline-run";
  config.cluster_labels.zone = "example.com/rack";
  const auto recs = advice::recommend({splitFinding("genome", "r1", 3, 3, 90, 60)}, config);
  REQUIRE(recs.size() == 1);
  const auto term = testing::addedValue(
      recs[0].patch_yaml, "/preferredDuringSchedulingIgnoredDuringExecution/-")["podAffinityTerm"];
  CHECK(term["topologyKey"].as<std::string>() == "example.com/rack");
  CHECK(term["labelSelector"]["matchLabels"]["pipeline"].as<std::string>() == "genome");
  CHECK(term["labelSelector"]["matchLabels"]["pipeline-run"].as<std::string>() == "r1");
}

TEST_CASE("a recommendation lists the evidence of its largest instances only, with the total",
          "[advice][split-dependencies]") {
  config::Config config;
  std::vector<analysis::Finding> findings;
  const std::size_t runs = advice::kEvidenceItems + 5;
  for (std::size_t i = 0; i < runs; ++i) {
    // Transfer grows with i, so the last runs matter most.
    findings.push_back(
        splitFinding("genome", "r" + std::to_string(i), 1, 0, 10.0 + static_cast<double>(i), 0));
  }
  const auto recs = advice::recommend(findings, config);
  REQUIRE(recs.size() == 1);
  const advice::Recommendation& rec = recs[0];
  CHECK(rec.instances.size() == runs);  // every run is still named
  const json& listed = rec.evidence["runs"];
  REQUIRE(listed.size() == advice::kEvidenceItems);
  CHECK(rec.evidence["runs_total"] == runs);
  CHECK(listed.front()["run"] == "r" + std::to_string(runs - 1));
  CHECK(listed.back()["run"] == "r" + std::to_string(runs - advice::kEvidenceItems));
  // Totals still count every run, not only the listed ones.
  CHECK(rec.evidence["split_node_edges"] == runs);
}

TEST_CASE("short evidence lists are left whole and get no total", "[advice][split-dependencies]") {
  config::Config config;
  const auto recs = advice::recommend({splitFinding("genome", "r1", 1, 0, 10, 0)}, config);
  REQUIRE(recs.size() == 1);
  CHECK(recs[0].evidence["runs"].size() == 1);
  CHECK_FALSE(recs[0].evidence.contains("runs_total"));
}

TEST_CASE("split-dependencies patches select the run by its engine's own labels",
          "[advice][split-dependencies]") {
  // An Argo run: its pods carry workflows.argoproj.io/workflow, never dag-id/dag-run.
  config::Config config;
  const analysis::Finding f = splitFinding("etl", "etl-x7k2p", 2, 1, 40, 30,
                                           {{"workflows.argoproj.io/workflow", "etl-x7k2p"}});
  const auto recs = advice::recommend({f}, config);
  REQUIRE(recs.size() == 1);
  const auto labels = testing::addedValue(
      recs[0].patch_yaml,
      "/preferredDuringSchedulingIgnoredDuringExecution/-")["podAffinityTerm"]["labelSelector"]
                                                           ["matchLabels"];
  REQUIRE(labels.size() == 1);
  CHECK(labels["workflows.argoproj.io/workflow"].as<std::string>() == "etl-x7k2p");
  CHECK_THAT(recs[0].action, Catch::Contains("workflows.argoproj.io/workflow"));
  CHECK_THAT(recs[0].action, !Catch::Contains("dag-id"));
}

TEST_CASE("split-dependencies writes an Argo run's affinity in its WorkflowTemplate, per run",
          "[advice][split-dependencies]") {
  analysis::Finding f = splitFinding("etl", "etl-x7k2p", 2, 1, 40, 30,
                                     {{"workflows.argoproj.io/workflow", "etl-x7k2p"}});
  auto evidence = f.evidenceAs<analysis::SplitDependenciesEvidence>();
  evidence.scope.engine = "argo";
  analysis::Finding argo = analysis::findingOf(std::move(evidence));
  argo.target = f.target;
  argo.severity = f.severity;
  argo.impact = f.impact;
  const auto recs = advice::recommend({argo}, config::Config{});
  REQUIRE(recs.size() == 1);
  const std::string& patch = recs[0].patch_yaml;
  // Workflow-wide (spec.affinity of the WorkflowTemplate), the run's name templated by Argo.
  const auto labels = testing::addedValue(
      patch,
      "/spec/affinity/podAffinity/"
      "preferredDuringSchedulingIgnoredDuringExecution/-")["podAffinityTerm"]["labelSelector"]
                                                          ["matchLabels"];
  CHECK(labels["workflows.argoproj.io/workflow"].as<std::string>() == "{{workflow.name}}");
  CHECK_THAT(patch, Catch::Contains("kubectl patch workflowtemplate etl -n science"));
  CHECK_THAT(recs[0].action, Catch::Contains("spec.templates[].affinity"));
  CHECK_THAT(patch, !Catch::Contains("set workflows.argoproj.io/workflow per run"));
}
