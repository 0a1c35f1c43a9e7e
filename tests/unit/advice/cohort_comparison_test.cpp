#include "analysis/detectors/cohort_comparison.h"

#include <catch2/catch.hpp>

#include "advice/recommender.h"

using namespace dagadvisor;

namespace {

analysis::Finding comparison(const std::string& dag, const std::string& verdict) {
  analysis::CohortComparisonEvidence e;
  e.dag = dag;
  e.label = "scheduler-version";
  e.baseline = "v1";
  e.cohort = "v2";
  e.verdict = verdict;
  e.family_tests = 6;
  analysis::Finding f = analysis::findingOf(std::move(e));
  f.severity = verdict == "slower" ? analysis::Severity::kWarning : analysis::Severity::kInfo;
  f.target = "dag/" + dag + "/cohort/scheduler-version=v2";
  f.impact = 300;
  return f;
}

}  // namespace

TEST_CASE("cohort advice names the DAG and the correction behind its verdict",
          "[advice][cohort-comparison]") {
  const auto recs = advice::recommend(
      {comparison("etl/nightly", "slower"), comparison("etl/hourly", "no verdict")}, {});
  REQUIRE(recs.size() == 2);
  CHECK(recs[0].target == "dag/etl/nightly/cohort/scheduler-version=v2");
  CHECK_THAT(recs[0].action, Catch::StartsWith("Roll back scheduler-version=v2 on etl/nightly"));
  CHECK_THAT(recs[0].action, Catch::Contains("Holm-adjusted over the 6 tests"));
  CHECK_THAT(recs[0].impact, Catch::Contains("(measured, within one DAG)"));
  CHECK_THAT(recs[1].action, Catch::StartsWith("No verdict yet for scheduler-version=v2 on "
                                               "etl/hourly"));
}
