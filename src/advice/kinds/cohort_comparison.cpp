#include "advice/kinds/cohort_comparison.h"

#include "advice/kinds/finding_groups.h"
#include "analysis/detectors/cohort_comparison.h"

namespace dagadvisor::advice {
namespace {

using analysis::CohortComparisonEvidence;

std::string actionFor(const CohortComparisonEvidence& e) {
  const std::string cohort = e.label + "=" + e.cohort;
  const std::string where = e.dag.empty() ? "for the pods of no workflow run" : "on " + e.dag;
  const std::string test = " (evidence: medians, Mann-Whitney p-values Holm-adjusted over the " +
                           std::to_string(e.family_tests) +
                           " tests of this cycle, and sample sizes; measured)";
  if (e.verdict == "slower") {
    return "Roll back " + cohort + " " + where + ": it is significantly slower than " + e.baseline +
           test + ". Compare the other DAGs' findings before rolling back everywhere.";
  }
  if (e.verdict == "faster") {
    return "Keep " + cohort + " " + where + ": it is significantly faster than " + e.baseline +
           test + "; roll it out further.";
  }
  return "No verdict yet for " + cohort + " " + where +
         ": no significant difference once corrected for the number of tests, or too few "
         "samples of a measure; keep both cohorts running.";
}

}  // namespace

std::vector<Recommendation> adviseCohortComparison(const FindingList& findings,
                                                   const config::Config& /*config*/,
                                                   const model::ClusterSnapshot& /*cluster*/) {
  std::vector<Recommendation> out;
  for (const analysis::Finding* f : findings) {
    Recommendation rec;
    rec.kind = std::string(CohortComparisonEvidence::kKind);
    rec.target = f->target;
    rec.evidence = cover(rec, {f}).front();
    rec.title = f->summary;
    rec.action = actionFor(f->evidenceAs<CohortComparisonEvidence>());
    rec.impact_score = f->impact;
    rec.impact = "median run makespan differs by " + formatSeconds(f->impact) +
                 " (measured, within one DAG)";
    out.push_back(std::move(rec));
  }
  return out;
}

}  // namespace dagadvisor::advice
