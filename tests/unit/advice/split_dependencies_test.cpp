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
  evidence.modelled_transfer_seconds = seconds;
  evidence.critical_path_modelled_transfer_seconds = critical_seconds;
  analysis::Finding f = analysis::findingOf(std::move(evidence));
  f.severity = cross > 0 ? analysis::Severity::kWarning : analysis::Severity::kInfo;
  f.target = "run/science/" + dag + "/" + run;
  f.impact = seconds;
  return f;
}

// The same finding as splitFinding() with 2 split edges (1 across zones), from `engine`.
analysis::Finding engineFinding(const std::string& engine, const std::string& run,
                                analysis::LabelPairs selector,
                                analysis::LabelPairs dag_selector = {}) {
  const analysis::Finding base = splitFinding("etl", run, 2, 1, 40, 30, std::move(selector));
  auto e = base.evidenceAs<analysis::SplitDependenciesEvidence>();
  e.scope.engine = engine;
  e.scope.dag_selector = std::move(dag_selector);
  analysis::Finding f = analysis::findingOf(std::move(e));
  f.target = base.target;
  return f;
}

}  // namespace

TEST_CASE("split runs of one DAG become one recommendation: a zone per run, and siblings",
          "[advice][split-dependencies]") {
  config::Config config;
  const std::vector<analysis::Finding> findings = {
      splitFinding("genome", "r1", 3, 3, 90, 60), splitFinding("genome", "2026-11-30", 2, 0, 10, 0),
      splitFinding("other", "r9", 4, 1, 45, 30)};
  const auto recs = advice::recommend(findings, config);
  REQUIRE(recs.size() == 2);
  const advice::Recommendation& rec = recs[0];  // 100 s of modelled transfer ranks first
  CHECK(rec.kind == "split-dependencies");
  CHECK(rec.target == "dag/science/genome");
  CHECK(rec.instances ==
        std::vector<std::string>{"run/science/genome/r1", "run/science/genome/2026-11-30"});
  CHECK(rec.severity == analysis::Severity::kWarning);
  CHECK(rec.impact_score == Approx(100));
  CHECK(rec.evidence["split_node_edges"] == 5);
  CHECK(rec.evidence["cross_zone_edges"] == 3);
  CHECK(rec.evidence["transfer_basis"] == "modelled");
  CHECK(rec.evidence["modelled_transfer_seconds"].get<double>() == Approx(100));
  CHECK(rec.evidence["max_critical_path_modelled_transfer_seconds"].get<double>() == Approx(60));
  // Every figure in the words says what it rests on.
  CHECK_THAT(rec.impact, Catch::Contains("transfer cost unmeasured"));
  CHECK_THAT(rec.impact, Catch::Contains("modelled (analysis.transfer, not measured): 100 s"));
  CHECK_THAT(rec.title, Catch::EndsWith("transfer modelled"));
  CHECK(recs[1].target == "dag/science/other");

  // JSON patches appending one preferred term each (other affinity terms stay).
  // 1. A zone chosen per run: node affinity works whether the parent still runs or not.
  const auto preferred = testing::addedValue(
      rec.patch_yaml, "/nodeAffinity/preferredDuringSchedulingIgnoredDuringExecution/-");
  REQUIRE(preferred.IsMap());
  CHECK(preferred["weight"].as<int>() == 100);
  const auto expression = preferred["preference"]["matchExpressions"][0];
  CHECK(expression["key"].as<std::string>() == "topology.kubernetes.io/zone");
  CHECK(expression["operator"].as<std::string>() == "In");
  CHECK(expression["values"][0].as<std::string>() == "ZONE-CHOSEN-FOR-THE-RUN");
  // 2. Siblings of one run: a static term, the run's value taken from each pod by matchLabelKeys.
  const auto term = testing::addedValue(
      rec.patch_yaml,
      "/podAffinity/preferredDuringSchedulingIgnoredDuringExecution/-")["podAffinityTerm"];
  CHECK(term["topologyKey"].as<std::string>() == "topology.kubernetes.io/zone");
  REQUIRE(term["matchLabelKeys"].size() == 1);
  CHECK(term["matchLabelKeys"][0].as<std::string>() == "dag-run");
  CHECK(term["labelSelector"].IsMap());
  CHECK_THAT(rec.patch_yaml, Catch::Contains("one zone per run (covers every edge)"));
  CHECK_THAT(rec.action, Catch::Contains("no pod affinity can cover"));
}

TEST_CASE("a measured slowdown leads the figures and the ranking score",
          "[advice][split-dependencies]") {
  config::Config config;
  analysis::Finding f = splitFinding("genome", "r1", 3, 3, 90, 60);
  {
    auto e = f.evidenceAs<analysis::SplitDependenciesEvidence>();
    e.basis = analysis::TransferBasis::kMeasured;
    e.measured_transfer_seconds = 240;
    e.sequential_split_edges = 2;
    analysis::Finding measured = analysis::findingOf(std::move(e));
    measured.severity = analysis::Severity::kWarning;
    measured.target = f.target;
    f = std::move(measured);
  }
  const auto recs = advice::recommend({f}, config);
  REQUIRE(recs.size() == 1);
  CHECK(recs[0].impact_score == Approx(240));  // the measured figure, not the modelled 90 s
  CHECK(recs[0].evidence["transfer_basis"] == "measured");
  CHECK(recs[0].evidence["measured_transfer_seconds"].get<double>() == Approx(240));
  CHECK(recs[0].evidence["sequential_split_edges"] == 2);
  CHECK_THAT(recs[0].impact, Catch::StartsWith("measured: 4 min of slowdown in 1 run(s)"));
  CHECK_THAT(recs[0].action, Catch::Contains("also the 2 of 3 split edge(s)"));
}

TEST_CASE("split-dependencies advice follows renamed workflow labels and zone label",
          "[advice][split-dependencies]") {
  config::Config config;
  config.workflow_labels.dag_label = "pipeline";
  config.workflow_labels.run_label = "pipeline-run";
  config.cluster_labels.zone = "example.com/rack";
  const auto recs = advice::recommend({splitFinding("genome", "r1", 3, 3, 90, 60)}, config);
  REQUIRE(recs.size() == 1);
  CHECK(testing::addedValue(recs[0].patch_yaml,
                            "/nodeAffinity/preferredDuringSchedulingIgnoredDuringExecution/-")
            ["preference"]["matchExpressions"][0]["key"]
                .as<std::string>() == "example.com/rack");
  const auto term = testing::addedValue(
      recs[0].patch_yaml,
      "/podAffinity/preferredDuringSchedulingIgnoredDuringExecution/-")["podAffinityTerm"];
  CHECK(term["topologyKey"].as<std::string>() == "example.com/rack");
  CHECK(term["matchLabelKeys"][0].as<std::string>() == "pipeline-run");
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

TEST_CASE("split-dependencies advice speaks each engine's templating",
          "[advice][split-dependencies]") {
  config::Config config;
  SECTION("Argo: a workflow parameter, matchLabelKeys on the workflow label") {
    const analysis::Finding argo =
        engineFinding("argo", "etl-x7k2p", {{"workflows.argoproj.io/workflow", "etl-x7k2p"}},
                      {{"workflows.argoproj.io/workflow-template", "etl"}});
    const auto recs = advice::recommend({argo}, config);
    REQUIRE(recs.size() == 1);
    CHECK(testing::addedValue(recs[0].patch_yaml,
                              "/nodeAffinity/preferredDuringSchedulingIgnoredDuringExecution/-")
              ["preference"]["matchExpressions"][0]["values"][0]
                  .as<std::string>() == "{{workflow.parameters.zone}}");
    const auto term = testing::addedValue(
        recs[0].patch_yaml,
        "/podAffinity/preferredDuringSchedulingIgnoredDuringExecution/-")["podAffinityTerm"];
    CHECK(term["matchLabelKeys"][0].as<std::string>() == "workflows.argoproj.io/workflow");
    CHECK(term["labelSelector"]["matchLabels"]["workflows.argoproj.io/workflow-template"]
              .as<std::string>() == "etl");
    CHECK_THAT(recs[0].action, Catch::Contains("templates[].affinity"));
    CHECK_THAT(recs[0].action, !Catch::Contains("dag-id"));
    // The replay applies the same sibling term (the zone per run needs a value it cannot know).
    REQUIRE(recs[0].changes.changes.size() == 1);
    const auto& change = std::get<replay::AddPreferredPodAffinity>(recs[0].changes.changes[0]);
    CHECK(change.match_label_keys == std::vector<std::string>{"workflows.argoproj.io/workflow"});
    CHECK(change.term.weight == 50);
    CHECK_FALSE(change.term.anti);
    CHECK(change.term.topology_key == config.cluster_labels.zone);
    CHECK(change.pods.namespace_ == "science");
    model::LabelSet dag_pod;
    dag_pod.set("workflows.argoproj.io/workflow-template", "etl");
    CHECK(change.term.selector.matches(dag_pod));
    CHECK(change.pods.labels.matches(dag_pod));
  }
  SECTION("Tekton: the affinity assistant's coscheduling") {
    const analysis::Finding tekton =
        engineFinding("tekton", "build-abc", {{"tekton.dev/pipelineRun", "build-abc"}});
    const auto recs = advice::recommend({tekton}, config);
    REQUIRE(recs.size() == 1);
    CHECK_THAT(recs[0].action, Catch::Contains("coschedule: pipelineruns"));
    CHECK(testing::addedValue(recs[0].patch_yaml,
                              "/podAffinity/preferredDuringSchedulingIgnoredDuringExecution/-")
              ["podAffinityTerm"]["matchLabelKeys"][0]
                  .as<std::string>() == "tekton.dev/pipelineRun");
  }
  SECTION("Airflow: a pod_mutation_hook choosing the zone per run_id") {
    const analysis::Finding airflow = engineFinding("airflow", "manual__2026", {{"run_id", "m"}});
    const auto recs = advice::recommend({airflow}, config);
    REQUIRE(recs.size() == 1);
    CHECK_THAT(recs[0].action, Catch::Contains("pod_mutation_hook"));
  }
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
  // Workflow-wide (spec.affinity of the WorkflowTemplate): the zone an Argo parameter, the run
  // taken from each pod by matchLabelKeys, so one static template serves every run.
  CHECK(testing::addedValue(
            patch,
            "/spec/affinity/nodeAffinity/"
            "preferredDuringSchedulingIgnoredDuringExecution/-")["preference"]["matchExpressions"]
                                                                [0]["values"][0]
                                                                    .as<std::string>() ==
        "{{workflow.parameters.zone}}");
  const auto term =
      testing::addedValue(patch,
                          "/spec/affinity/podAffinity/"
                          "preferredDuringSchedulingIgnoredDuringExecution/-")["podAffinityTerm"];
  CHECK(term["matchLabelKeys"][0].as<std::string>() == "workflows.argoproj.io/workflow");
  CHECK_THAT(patch, Catch::Contains("kubectl patch workflowtemplate etl -n science"));
  CHECK_THAT(recs[0].action, Catch::Contains("templates[].affinity"));
  CHECK_THAT(patch, !Catch::Contains("set workflows.argoproj.io/workflow per run"));
}
