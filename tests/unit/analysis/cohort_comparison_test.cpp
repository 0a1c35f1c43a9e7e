#include "analysis/detectors/cohort_comparison.h"

#include <catch2/catch.hpp>

#include "run_fixture.h"
#include "scenarios.h"

using namespace dagadvisor;

namespace {

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
  CHECK(json["latency"]["baseline_samples"] == 20);
  CHECK(json["latency"]["difference_seconds"].get<double>() == Approx(100));
  CHECK(json["latency"]["p_value"].get<double>() < 1e-6);
  CHECK(json["makespan"] ==
        nlohmann::json{{"baseline_samples", 0}, {"samples", 0}, {"verdict", "no_data"}});
}

TEST_CASE("no verdict below the minimum sample", "[detector][cohort-comparison]") {
  std::vector<model::Pod> pods;
  addCohort(pods, "v1", 19, 1);
  addCohort(pods, "v2", 19, 101);
  const auto findings = detectCohortComparison(pods);
  REQUIRE(findings.size() == 1);
  const auto& e = findings[0].evidenceAs<analysis::CohortComparisonEvidence>();
  CHECK(e.latency.verdict == "too_few_samples");
  CHECK(e.verdict == "no verdict");
  CHECK(findings[0].severity == analysis::Severity::kInfo);
  config::Config config;
  config.detectors.get<analysis::CohortComparisonSettings>().min_samples = 19;
  CHECK(detectCohortComparison(pods, config)[0]
            .evidenceAs<analysis::CohortComparisonEvidence>()
            .verdict == "slower");
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
