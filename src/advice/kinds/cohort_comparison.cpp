#include "advice/kinds/cohort_comparison.h"

#include "advice/kinds/finding_groups.h"
#include "analysis/detectors/cohort_comparison.h"

namespace dagadvisor::advice {
namespace {

using analysis::CohortComparisonEvidence;

std::string actionFor(const CohortComparisonEvidence& e) {
  const std::string cohort = e.label + "=" + e.cohort;
  if (e.verdict == "slower") {
    return "Roll back " + cohort + ": it is significantly slower than " + e.baseline +
           " (evidence: medians, Mann-Whitney p-values and sample sizes).";
  }
  if (e.verdict == "faster") {
    return "Keep " + cohort + ": it is significantly faster than " + e.baseline +
           "; roll it out further.";
  }
  return "No verdict yet for " + cohort +
         ": too few samples or no significant difference; keep both cohorts running.";
}

}  // namespace

std::vector<Recommendation> adviseCohortComparison(const FindingList& findings,
                                                   const config::Config& /*config*/) {
  std::vector<Recommendation> out;
  for (const analysis::Finding* f : findings) {
    Recommendation rec;
    rec.kind = std::string(CohortComparisonEvidence::kKind);
    rec.target = f->target;
    rec.evidence = cover(rec, {f}).front();
    rec.title = f->summary;
    rec.action = actionFor(f->evidenceAs<CohortComparisonEvidence>());
    rec.impact_score = f->impact;
    rec.impact = "median run makespan differs by " + formatSeconds(f->impact);
    out.push_back(std::move(rec));
  }
  return out;
}

}  // namespace dagadvisor::advice
