#include "advice/kinds/cohort_comparison.h"

#include "advice/kinds/finding_groups.h"

namespace dagadvisor::advice {
namespace {

using nlohmann::json;

std::string actionFor(const std::string& verdict, const json& e) {
  const std::string cohort = e.value("label", "") + "=" + e.value("cohort", "");
  if (verdict == "slower") {
    return "Roll back " + cohort + ": it is significantly slower than " + e.value("baseline", "") +
           " (evidence: medians, Mann-Whitney p-values and sample sizes).";
  }
  if (verdict == "faster") {
    return "Keep " + cohort + ": it is significantly faster than " + e.value("baseline", "") +
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
    rec.kind = "cohort-comparison";
    rec.target = f->target;
    rec.evidence = cover(rec, {f}).front();
    const std::string verdict = f->evidence.value("verdict", "");
    rec.title = f->summary;
    rec.action = actionFor(verdict, f->evidence);
    rec.impact_score = f->impact;
    rec.impact = "median run makespan differs by " + formatSeconds(f->impact);
    out.push_back(std::move(rec));
  }
  return out;
}

}  // namespace dagadvisor::advice
