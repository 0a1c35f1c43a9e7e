#include "analysis/detectors/cohort_comparison.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <string_view>

#include "analysis/detectors/detector_util.h"

namespace dagadvisor::analysis {
namespace {

using nlohmann::json;

struct Cohort {
  std::vector<double> latency;   // per pod, created → scheduled
  std::vector<double> makespan;  // per finished run
};

struct Test {
  double u = 0;
  double p = 1;
};

// Mann-Whitney U with the normal approximation (average ranks for ties); sound from about
// 20 samples a side, which is why min_samples gates the verdict. Two-sided p-value.
Test mannWhitney(const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<std::pair<double, int>> all;
  for (double v : a) {
    all.emplace_back(v, 0);
  }
  for (double v : b) {
    all.emplace_back(v, 1);
  }
  std::sort(all.begin(), all.end());
  double rank_sum_a = 0;
  for (std::size_t i = 0; i < all.size();) {
    std::size_t j = i;
    while (j < all.size() && all[j].first == all[i].first) {
      ++j;
    }
    const double rank = (static_cast<double>(i + j) + 1) / 2;  // 1-based average rank
    for (std::size_t k = i; k < j; ++k) {
      rank_sum_a += all[k].second == 0 ? rank : 0;
    }
    i = j;
  }
  const auto n1 = static_cast<double>(a.size());
  const auto n2 = static_cast<double>(b.size());
  Test t;
  t.u = rank_sum_a - n1 * (n1 + 1) / 2;
  const double sigma = std::sqrt(n1 * n2 * (n1 + n2 + 1) / 12);
  if (sigma > 0) {
    const double z = (t.u - n1 * n2 / 2) / sigma;
    t.p = std::erfc(std::abs(z) / std::sqrt(2.0));
  }
  return t;
}

CohortMeasure compare(std::vector<double> base, std::vector<double> other,
                      const analysis::CohortComparisonSettings& params) {
  CohortMeasure out;
  out.baseline_samples = base.size();
  out.samples = other.size();
  if (base.empty() || other.empty()) {
    out.verdict = "no_data";
    return out;
  }
  const Test test = mannWhitney(base, other);
  const double base_median = quantile(base, 0.5);
  const double median = quantile(other, 0.5);
  out.medians = CohortMedians{base_median, median, test.u, test.p};
  const auto min = static_cast<std::size_t>(params.min_samples);
  if (base.size() < min || other.size() < min) {
    out.verdict = "too_few_samples";
  } else if (test.p > params.max_p_value) {
    out.verdict = "no_significant_difference";
  } else {
    out.verdict = median > base_median ? "slower" : "faster";
  }
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
                {"p_value", m.medians->p_value}});
  }
  return out;
}

using Cohorts = std::map<std::string, Cohort, std::less<>>;

// The cohort of a label value, found without building a string for every pod.
Cohort& cohortOf(Cohorts& all, std::string_view value) {
  const auto it = all.find(value);
  return it != all.end() ? it->second : all[std::string(value)];
}

Cohorts cohorts(const AnalysisInput& input, const std::string& raw_label) {
  // Normalized once: LabelSet::get would build the normalized key again for every pod.
  const std::string label = model::LabelSet::normalizeKey(raw_label);
  Cohorts out;
  for (const model::Pod& pod : input.cluster.pods()) {
    const auto value = pod.labels.get(label);
    if (value && pod.created && pod.scheduled && *pod.scheduled >= *pod.created) {
      cohortOf(out, *value).latency.push_back(*pod.scheduled - *pod.created);
    }
  }
  for (const graph::RunGraph& rg : input.runs) {
    if (rg.run == nullptr || !rg.finished || rg.run->tasks.empty()) {
      continue;
    }
    const model::Pod* pod = taskPod(rg, 0, input.cluster);
    const auto value = pod != nullptr ? pod->labels.get(label) : std::nullopt;
    if (value) {
      cohortOf(out, *value).makespan.push_back(rg.makespan);
    }
  }
  return out;
}

}  // namespace

json CohortComparisonEvidence::toJson() const {
  return {{"label", label},
          {"baseline", baseline},
          {"cohort", cohort},
          {"verdict", verdict},
          {"test", "mann-whitney-u"},
          {"latency", measureJson(latency)},
          {"makespan", measureJson(makespan)}};
}

const DetectorInfo& CohortComparison::info() const {
  static const DetectorInfo kInfo{
      CohortComparisonEvidence::kKind,
      "A/B of scheduling latency and run makespan between cohorts split by a pod label"};
  return kInfo;
}

void CohortComparison::analyze(const AnalysisInput& input, FindingSink& out) const {
  const auto& params = input.config.detectors.get<analysis::CohortComparisonSettings>();
  const auto groups = cohorts(input, params.cohort_label);
  if (groups.size() < 2) {
    out.noAdvice(
        formatText("no two cohorts to compare: %zu value(s) of the label %s on pods "
                   "with scheduling times or finished runs",
                   groups.size(), params.cohort_label.c_str()));
    return;
  }
  const auto& [base_name, base] = *groups.begin();
  for (auto it = std::next(groups.begin()); it != groups.end(); ++it) {
    const auto& [name, cohort] = *it;
    CohortComparisonEvidence evidence;
    evidence.label = params.cohort_label;
    evidence.baseline = base_name;
    evidence.cohort = name;
    evidence.latency = compare(base.latency, cohort.latency, params);
    evidence.makespan = compare(base.makespan, cohort.makespan, params);
    const bool slower =
        evidence.latency.verdict == "slower" || evidence.makespan.verdict == "slower";
    const bool faster =
        evidence.latency.verdict == "faster" || evidence.makespan.verdict == "faster";
    evidence.verdict = slower ? "slower" : faster ? "faster" : "no verdict";
    const std::string summary = formatText(
        "%s=%s vs %s: %s (latency p=%.3g on %zu/%zu pods, makespan p=%.3g on %zu/%zu runs)",
        params.cohort_label.c_str(), name.c_str(), base_name.c_str(), evidence.verdict.c_str(),
        evidence.latency.pValue(), base.latency.size(), cohort.latency.size(),
        evidence.makespan.pValue(), base.makespan.size(), cohort.makespan.size());
    const double impact = std::abs(evidence.makespan.differenceSeconds());
    Finding finding = findingOf(std::move(evidence));
    finding.severity = slower ? Severity::kWarning : Severity::kInfo;
    finding.target = "cohort/" + params.cohort_label + "=" + name;
    finding.summary = summary;
    finding.impact = impact;
    out.emit(std::move(finding));
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
       "...nor when the p-value of the difference is above this."},
  };
}

}  // namespace dagadvisor::analysis
