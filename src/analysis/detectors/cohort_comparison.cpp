#include "analysis/detectors/cohort_comparison.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <functional>
#include <map>
#include <string_view>
#include <vector>

#include "analysis/detectors/detector_util.h"
#include "analysis/rank_statistics.h"

namespace dagadvisor::analysis {
namespace {

using nlohmann::json;

struct Cohort {
  std::vector<double> latency;   // per pod, created → scheduled
  std::vector<double> makespan;  // per finished run
};

using Cohorts = std::map<std::string, Cohort, std::less<>>;
// By DAG ("<namespace>/<dag>"); "" holds the pods of no run.
using Groups = std::map<std::string, Cohorts>;

CohortMeasure compare(const std::vector<double>& base, const std::vector<double>& other,
                      const analysis::CohortComparisonSettings& params) {
  CohortMeasure out;
  out.baseline_samples = base.size();
  out.samples = other.size();
  if (base.empty() || other.empty()) {
    out.verdict = "no_data";
    return out;
  }
  const RankSumTest test = mannWhitneyU(base, other);
  std::vector<double> b = base;
  std::vector<double> o = other;
  out.medians = CohortMedians{quantile(b, 0.5), quantile(o, 0.5), test.u, test.p_two_sided, 1};
  const auto min = static_cast<std::size_t>(params.min_samples);
  // The verdict of a tested measure waits for the family's adjustment (adjustFamily).
  out.verdict = base.size() < min || other.size() < min ? "too_few_samples" : "tested";
  return out;
}

json measureJson(const CohortMeasure& m) {
  json out = {
      {"baseline_samples", m.baseline_samples}, {"samples", m.samples}, {"verdict", m.verdict}};
  if (m.medians) {
    out.update({{"baseline_median_seconds", m.medians->baseline_median_seconds},
                {"median_seconds", m.medians->median_seconds},
                {"difference_seconds", m.medians->differenceSeconds()},
                {"u", m.medians->u},
                {"p_value", m.medians->p_value},
                {"adjusted_p_value", m.medians->adjusted_p_value}});
  }
  return out;
}

// The cohort of a label value, found without building a string for every pod.
Cohort& cohortOf(Cohorts& all, std::string_view value) {
  const auto it = all.find(value);
  return it != all.end() ? it->second : all[std::string(value)];
}

// Each pod's DAG key (stored in `keys`, whose elements never move), or nullptr for pods of no
// run.
std::vector<const std::string*> dagOfPods(const AnalysisInput& input,
                                          std::deque<std::string>& keys) {
  std::map<std::string, const std::string*> unique;
  std::vector<const std::string*> out(input.cluster.pods().size(), nullptr);
  for (const graph::RunGraph& rg : input.runs) {
    if (rg.run == nullptr) {
      continue;
    }
    const std::string key = rg.run->namespace_ + "/" + rg.run->dag;
    auto [it, added] = unique.try_emplace(key, nullptr);
    if (added) {
      it->second = &keys.emplace_back(key);
    }
    for (const model::Task& task : rg.run->tasks) {
      if (task.pod < out.size()) {
        out[task.pod] = it->second;
      }
    }
  }
  return out;
}

void addLatencies(const AnalysisInput& input, const std::string& label, Groups& out) {
  std::deque<std::string> keys;
  const std::vector<const std::string*> dag_of = dagOfPods(input, keys);
  const std::string no_dag;
  for (model::PodId id = 0; id < input.cluster.pods().size(); ++id) {
    const model::Pod& pod = input.cluster.pod(id);
    const auto value = pod.labels.get(label);
    if (value && pod.created && pod.scheduled && *pod.scheduled >= *pod.created) {
      const std::string& dag = dag_of[id] != nullptr ? *dag_of[id] : no_dag;
      cohortOf(out[dag], *value).latency.push_back(*pod.scheduled - *pod.created);
    }
  }
}

void addMakespans(const AnalysisInput& input, const std::string& label, Groups& out) {
  for (const graph::RunGraph& rg : input.runs) {
    if (rg.run == nullptr || !rg.finished || rg.run->tasks.empty()) {
      continue;
    }
    const model::Pod* pod = taskPod(rg, 0, input.cluster);
    const auto value = pod != nullptr ? pod->labels.get(label) : std::nullopt;
    if (value) {
      cohortOf(out[rg.run->namespace_ + "/" + rg.run->dag], *value).makespan.push_back(rg.makespan);
    }
  }
}

Groups groupsOf(const AnalysisInput& input, const std::string& raw_label) {
  // Normalized once: LabelSet::get would build the normalized key again for every pod.
  const std::string label = model::LabelSet::normalizeKey(raw_label);
  Groups out;
  addLatencies(input, label, out);
  addMakespans(input, label, out);
  return out;
}

std::vector<CohortComparisonEvidence> comparisons(
    const Groups& groups, const analysis::CohortComparisonSettings& params) {
  std::vector<CohortComparisonEvidence> out;
  for (const auto& [dag, cohorts] : groups) {
    if (cohorts.size() < 2) {
      continue;
    }
    const auto& [base_name, base] = *cohorts.begin();
    for (auto it = std::next(cohorts.begin()); it != cohorts.end(); ++it) {
      CohortComparisonEvidence e;
      e.dag = dag;
      e.label = params.cohort_label;
      e.baseline = base_name;
      e.cohort = it->first;
      e.latency = compare(base.latency, it->second.latency, params);
      e.makespan = compare(base.makespan, it->second.makespan, params);
      out.push_back(std::move(e));
    }
  }
  return out;
}

void decide(CohortMeasure& m, double max_p_value) {
  if (!m.tested()) {
    return;
  }
  m.verdict = m.medians->adjusted_p_value > max_p_value ? "no_significant_difference"
              : m.medians->median_seconds > m.medians->baseline_median_seconds ? "slower"
                                                                               : "faster";
}

// Holm over every tested measure of the cycle: with many DAGs, cohorts and two measures, some
// raw p-value under 0.05 is likely by chance alone, and a "slower" verdict asks for a roll-back.
void adjustFamily(std::vector<CohortComparisonEvidence>& all, double max_p_value) {
  std::vector<CohortMeasure*> tested;
  for (CohortComparisonEvidence& e : all) {
    for (CohortMeasure* m : {&e.latency, &e.makespan}) {
      if (m->tested()) {
        tested.push_back(m);
      }
    }
  }
  std::vector<double> raw;
  for (const CohortMeasure* m : tested) {
    raw.push_back(m->medians->p_value);
  }
  const std::vector<double> adjusted = holmAdjusted(raw);
  for (std::size_t i = 0; i < tested.size(); ++i) {
    tested[i]->medians->adjusted_p_value = adjusted[i];
  }
  for (CohortComparisonEvidence& e : all) {
    e.family_tests = tested.size();
    decide(e.latency, max_p_value);
    decide(e.makespan, max_p_value);
  }
}

std::string summaryOf(const CohortComparisonEvidence& e) {
  const std::string where = e.dag.empty() ? "pods of no workflow run" : e.dag;
  return formatText(
      "%s: %s=%s vs %s: %s (Holm-adjusted over %zu tests: latency p=%.3g on %zu/%zu pods, "
      "makespan p=%.3g on %zu/%zu runs)",
      where.c_str(), e.label.c_str(), e.cohort.c_str(), e.baseline.c_str(), e.verdict.c_str(),
      e.family_tests, e.latency.adjustedPValue(), e.latency.baseline_samples, e.latency.samples,
      e.makespan.adjustedPValue(), e.makespan.baseline_samples, e.makespan.samples);
}

Finding makeFinding(CohortComparisonEvidence e) {
  const bool slower = e.latency.verdict == "slower" || e.makespan.verdict == "slower";
  const bool faster = e.latency.verdict == "faster" || e.makespan.verdict == "faster";
  e.verdict = slower ? "slower" : faster ? "faster" : "no verdict";
  const std::string summary = summaryOf(e);
  const std::string cohort = "cohort/" + e.label + "=" + e.cohort;
  const std::string target = e.dag.empty() ? cohort : "dag/" + e.dag + "/" + cohort;
  const double impact = std::abs(e.makespan.differenceSeconds());
  Finding finding = findingOf(std::move(e));
  finding.severity = slower ? Severity::kWarning : Severity::kInfo;
  finding.target = target;
  finding.summary = summary;
  finding.impact = impact;
  return finding;
}

}  // namespace

json CohortComparisonEvidence::toJson() const {
  return {{"dag", dag},
          {"label", label},
          {"baseline", baseline},
          {"cohort", cohort},
          {"verdict", verdict},
          {"test", "mann-whitney-u"},
          {"correction", "holm"},
          {"family_tests", family_tests},
          {"latency", measureJson(latency)},
          {"makespan", measureJson(makespan)}};
}

const DetectorInfo& CohortComparison::info() const {
  static const DetectorInfo kInfo{
      CohortComparisonEvidence::kKind,
      "A/B of scheduling latency and run makespan between cohorts of one DAG, split by a pod "
      "label"};
  return kInfo;
}

void CohortComparison::analyze(const AnalysisInput& input, FindingSink& out) const {
  const auto& params = input.config.detectors.get<analysis::CohortComparisonSettings>();
  std::vector<CohortComparisonEvidence> all =
      comparisons(groupsOf(input, params.cohort_label), params);
  if (all.empty()) {
    out.noAdvice(
        formatText("no two cohorts to compare: no DAG (nor the pods of no run) has "
                   "two values of the label %s on pods with scheduling times or "
                   "finished runs",
                   params.cohort_label.c_str()));
    return;
  }
  adjustFamily(all, params.max_p_value);
  std::size_t untested = 0;
  for (CohortComparisonEvidence& e : all) {
    if (!e.latency.tested() && !e.makespan.tested()) {
      ++untested;
      continue;
    }
    out.emit(makeFinding(std::move(e)));
  }
  if (untested == all.size()) {
    out.noAdvice(
        formatText("%zu cohort comparison(s), none with %d samples on both sides "
                   "(pods or finished runs of one DAG per cohort)",
                   untested, params.min_samples));
  }
}

std::vector<config::Field> CohortComparisonSettings::fields() {
  return {
      {"enabled", &enabled, config::Rule::kNone, "Turn this check on or off."},
      {"cohort_label", &cohort_label, config::Rule::kNonEmpty,
       "The pod label whose values are the cohorts."},
      {"min_samples", &min_samples, config::Rule::kAtLeastOne,
       "No verdict below this many samples per cohort..."},
      {"max_p_value", &max_p_value, config::Rule::kShare,
       "...nor when the p-value of the difference, Holm-adjusted over every test of the "
       "cycle, is above this."},
  };
}

}  // namespace dagadvisor::analysis
