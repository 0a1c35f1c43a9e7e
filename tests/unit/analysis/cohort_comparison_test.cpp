#include "analysis/detectors/cohort_comparison.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <set>

#include "run_fixture.h"
#include "scenarios.h"

using namespace dagadvisor;
using testing::RunFixture;

namespace {

// A one-task run of ns/`dag` lasting `makespan` seconds, its pod in cohort `version`.
void addTimedRun(RunFixture& fx, const std::string& dag, const std::string& version,
                 double makespan) {
  const std::string run = dag + "-" + version + "-" + std::to_string(fx.runs.size());
  fx.addRun("etl", dag, run, {{"work", "n1", 0, makespan}}, {});
  fx.pods.back().labels.set("scheduler-version", version);
}

// 20 runs a cohort, makespans 100 … 119 s for v1 and `shift` seconds more for v2.
void addShiftedDag(RunFixture& fx, const std::string& dag, double shift) {
  for (int i = 0; i < 20; ++i) {
    addTimedRun(fx, dag, "v1", 100 + i);
    addTimedRun(fx, dag, "v2", 100 + i + shift);
  }
}

// `count` pods of cohort `version`, scheduled first + 0, first + 1, … seconds after creation.
void addCohort(std::vector<model::Pod>& pods, const std::string& version, int count, double first) {
  for (int i = 0; i < count; ++i) {
    pods.push_back(testing::makePod("ns", version + "-" + std::to_string(i), "n1", 0.1, 0.1, 0,
                                    [&](model::Pod& p) {
                                      p.labels.set("scheduler-version", version);
                                      p.scheduled = *p.created + first + i;
                                    }));
  }
}

std::vector<analysis::Finding> detectCohortComparison(const std::vector<model::Pod>& pods,
                                                      const config::Config& config = {}) {
  model::ClusterSnapshot cluster(5000, {testing::makeNode("n1", 64, 64)}, pods);
  return testing::findingsOf(analysis::CohortComparison(), cluster, {}, config);
}

}  // namespace

TEST_CASE("a slower cohort is called slower with its test and sample sizes",
          "[detector][cohort-comparison]") {
  std::vector<model::Pod> pods;
  addCohort(pods, "v1", 20, 1);    // 1 … 20 s
  addCohort(pods, "v2", 20, 101);  // 101 … 120 s: every v2 pod slower than every v1 pod
  const auto findings = detectCohortComparison(pods);
  REQUIRE(findings.size() == 1);
  const analysis::Finding& f = findings[0];
  CHECK(f.kind == "cohort-comparison");
  CHECK(f.target == "cohort/scheduler-version=v2");
  CHECK(f.severity == analysis::Severity::kWarning);
  const auto& e = f.evidenceAs<analysis::CohortComparisonEvidence>();
  CHECK(e.label == "scheduler-version");
  CHECK(e.baseline == "v1");
  CHECK(e.cohort == "v2");
  CHECK(e.verdict == "slower");
  const analysis::CohortMeasure& latency = e.latency;
  CHECK(latency.verdict == "slower");
  CHECK(latency.baseline_samples == 20);
  CHECK(latency.samples == 20);
  REQUIRE(latency.medians);
  CHECK(latency.differenceSeconds() == Approx(100));
  // U = 0 (no v1 pod slower than a v2 pod): z = −200 / sqrt(20·20·41/12) = −5.41.
  CHECK(latency.medians->u == Approx(0));
  CHECK(latency.pValue() < 1e-6);
  CHECK(e.makespan.verdict == "no_data");
  CHECK_FALSE(e.makespan.medians);
  // The API renders the same numbers under the documented keys.
  const auto json = f.evidenceJson();
  CHECK(json["verdict"] == "slower");
  CHECK(json["test"] == "mann-whitney-u");
  CHECK(json["correction"] == "holm");
  CHECK(json["dag"] == "");  // pods of no workflow run
  // One tested measure (makespan has no data): the family is that test alone.
  CHECK(e.family_tests == 1);
  CHECK(latency.adjustedPValue() == Approx(latency.pValue()));
  CHECK(json["latency"]["baseline_samples"] == 20);
  CHECK(json["latency"]["difference_seconds"].get<double>() == Approx(100));
  CHECK(json["latency"]["p_value"].get<double>() < 1e-6);
  CHECK(json["makespan"] ==
        nlohmann::json{{"baseline_samples", 0}, {"samples", 0}, {"verdict", "no_data"}});
}

TEST_CASE("below the minimum sample there is no verdict, and no finding",
          "[detector][cohort-comparison]") {
  std::vector<model::Pod> pods;
  addCohort(pods, "v1", 19, 1);
  addCohort(pods, "v2", 19, 101);
  model::ClusterSnapshot cluster(5000, {testing::makeNode("n1", 64, 64)}, pods);
  analysis::FindingSink sink;
  analysis::CohortComparison().analyze({cluster, {}, config::Config{}}, sink);
  CHECK(sink.findings().empty());
  CHECK_THAT(sink.noAdviceReason(), Catch::Contains("none with 20 samples on both sides"));
  config::Config config;
  config.detectors.get<analysis::CohortComparisonSettings>().min_samples = 19;
  const auto findings = detectCohortComparison(pods, config);
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].evidenceAs<analysis::CohortComparisonEvidence>().verdict == "slower");
}

TEST_CASE("equal cohorts show no significant difference", "[detector][cohort-comparison]") {
  std::vector<model::Pod> pods;
  addCohort(pods, "v1", 25, 1);
  addCohort(pods, "v2", 25, 1);
  const auto findings = detectCohortComparison(pods);
  REQUIRE(findings.size() == 1);
  const auto& latency = findings[0].evidenceAs<analysis::CohortComparisonEvidence>().latency;
  CHECK(latency.verdict == "no_significant_difference");
  CHECK(latency.pValue() == Approx(1.0));
}

TEST_CASE("one cohort, or none, is no comparison", "[detector][cohort-comparison]") {
  std::vector<model::Pod> pods;
  addCohort(pods, "v1", 25, 1);
  CHECK(detectCohortComparison(pods).empty());
  testing::RunFixture healthy = testing::healthyScenario();
  CHECK(healthy.detect(analysis::CohortComparison()).empty());
}

TEST_CASE("cohorts are compared per DAG, never pooled across DAGs",
          "[detector][cohort-comparison]") {
  // v2 ran mostly the 3-hour DAG, v1 mostly the 25-minute one; within each DAG the two cohorts
  // interleave. Pooled, v2 would look hours slower; per DAG, nothing differs.
  RunFixture fx;
  fx.nodes = {testing::makeNode("n1", 64, 64)};
  fx.at = 20000;
  for (int i = 0; i < 30; ++i) {
    addTimedRun(fx, "short", "v1", 1500 + 2 * i);
    addTimedRun(fx, "long", "v2", 10800 + 2 * i);
  }
  for (int i = 0; i < 20; ++i) {
    addTimedRun(fx, "short", "v2", 1501 + 2 * i);
    addTimedRun(fx, "long", "v1", 10801 + 2 * i);
  }
  const auto findings = fx.detect(analysis::CohortComparison());
  REQUIRE(findings.size() == 2);
  std::set<std::string> dags;
  for (const analysis::Finding& f : findings) {
    CHECK(f.severity == analysis::Severity::kInfo);
    const auto& e = f.evidenceAs<analysis::CohortComparisonEvidence>();
    dags.insert(e.dag);
    CHECK(e.makespan.verdict == "no_significant_difference");
    CHECK(std::abs(e.makespan.differenceSeconds()) < 60);
    CHECK(e.verdict == "no verdict");
  }
  CHECK(dags == std::set<std::string>{"etl/long", "etl/short"});
  CHECK(findings[0].target == "dag/etl/long/cohort/scheduler-version=v2");
}

TEST_CASE("Holm's correction: a p-value significant alone is not among many tests",
          "[detector][cohort-comparison]") {
  // Makespan shifted 5.5 s on 20 runs a side: U = 105 of 400, normal approximation (40 values,
  // over the exact limit) z = (95 − 0.5) / sqrt(400 · 41 / 12) = 2.556, two-sided p = 0.0106.
  RunFixture one;
  one.nodes = {testing::makeNode("n1", 64, 64)};
  addShiftedDag(one, "etl", 5.5);
  const auto alone = one.detect(analysis::CohortComparison());
  REQUIRE(alone.size() == 1);
  const auto& e = alone[0].evidenceAs<analysis::CohortComparisonEvidence>();
  // Two tests (latency — every pod scheduled at once, p = 1 — and makespan): 0.0106 × 2.
  CHECK(e.family_tests == 2);
  CHECK(e.makespan.pValue() == Approx(0.01058).epsilon(0.001));
  CHECK(e.makespan.adjustedPValue() == Approx(2 * e.makespan.pValue()));
  CHECK(e.makespan.verdict == "slower");
  CHECK(alone[0].severity == analysis::Severity::kWarning);

  // The same DAG beside two DAGs without a difference: six tests, 0.0106 × 6 > 0.05.
  RunFixture many;
  many.nodes = {testing::makeNode("n1", 64, 64)};
  addShiftedDag(many, "etl", 5.5);
  addShiftedDag(many, "reports", 0.5);
  addShiftedDag(many, "train", -0.5);
  const auto findings = many.detect(analysis::CohortComparison());
  REQUIRE(findings.size() == 3);
  for (const analysis::Finding& f : findings) {
    const auto& m = f.evidenceAs<analysis::CohortComparisonEvidence>();
    CHECK(m.family_tests == 6);
    CHECK(f.severity == analysis::Severity::kInfo);
    if (m.dag == "etl/etl") {
      CHECK(m.makespan.pValue() < 0.05);
      CHECK(m.makespan.adjustedPValue() == Approx(6 * m.makespan.pValue()));
      CHECK(m.makespan.verdict == "no_significant_difference");
      CHECK_THAT(f.summary, Catch::Contains("Holm-adjusted over 6 tests"));
    }
  }
}
