#include "analysis/detectors/scheduling_latency.h"

#include <algorithm>

#include "analysis/detectors/detector_util.h"

namespace dagadvisor::analysis {
namespace {

using model::SchedulerStats;
using nlohmann::json;

// Below these, a signal is too weak to name as the cause.
constexpr double kUnschedulableAttemptShare = 0.5;
constexpr double kSlowExtensionPointSeconds = 0.1;

double sum(const std::map<std::string, double>& values) {
  double total = 0;
  for (const auto& [key, value] : values) {
    total += value;
  }
  return total;
}

std::pair<std::string, double> largest(const std::map<std::string, double>& values) {
  std::pair<std::string, double> best{"", 0};
  for (const auto& [key, value] : values) {
    if (value > best.second) {
      best = {key, value};
    }
  }
  return best;
}

// The likely causes, most telling first, each with the number that points at it.
std::vector<SchedulingCause> causes(const SchedulerStats& stats) {
  using Kind = SchedulingCause::Kind;
  std::vector<SchedulingCause> out;
  const auto [plugin, rejected] = largest(stats.unschedulable_by_plugin);
  if (rejected > 0) {
    out.push_back({Kind::kUnschedulable, plugin, rejected});
  }
  const double attempts = sum(stats.attempts_per_second);
  const auto failed = stats.attempts_per_second.find("unschedulable");
  if (attempts > 0 && failed != stats.attempts_per_second.end() &&
      failed->second / attempts >= kUnschedulableAttemptShare) {
    out.push_back({Kind::kFailedAttempts, "", failed->second / attempts});
  }
  const auto errors = stats.attempts_per_second.find("error");
  if (errors != stats.attempts_per_second.end() && errors->second > 0) {
    out.push_back({Kind::kSchedulerErrors, "", errors->second});
  }
  const auto [point, p99] = largest(stats.extension_point_p99);
  if (p99 >= kSlowExtensionPointSeconds) {
    out.push_back({Kind::kSlowExtensionPoint, point, p99});
  }
  if (stats.preemption_attempts_per_second > 0) {
    out.push_back({Kind::kPreemption, "", stats.preemption_attempts_per_second});
  }
  const auto [queue, pending] = largest(stats.pending_by_queue);
  if (pending > 0) {
    out.push_back({Kind::kQueue, queue, pending});
  }
  return out;
}

json causeJson(const SchedulingCause& c) {
  json out = {{"cause", std::string(c.name())}};
  switch (c.kind) {
    case SchedulingCause::Kind::kUnschedulable:
      out["plugin"] = c.subject;
      out["pods"] = c.value;
      break;
    case SchedulingCause::Kind::kFailedAttempts:
      out["share"] = c.value;
      break;
    case SchedulingCause::Kind::kSchedulerErrors:
    case SchedulingCause::Kind::kPreemption:
      out["per_second"] = c.value;
      break;
    case SchedulingCause::Kind::kSlowExtensionPoint:
      out["extension_point"] = c.subject;
      out["p99"] = c.value;
      break;
    case SchedulingCause::Kind::kQueue:
      out["queue"] = c.subject;
      out["pods"] = c.value;
      break;
  }
  return out;
}

// Emits `evidence` (profile, source, quantiles and causes filled in) as a finding about `target`
// when a quantile is over its SLO.
void emitIfOver(const analysis::SchedulingLatencySettings& params, std::string target,
                SchedulingLatencyEvidence evidence, FindingSink& out) {
  evidence.p95_slo_seconds = params.p95_slo.count();
  evidence.p99_slo_seconds = params.p99_slo.count();
  const double p95 = evidence.p95_seconds;
  const double p99 = evidence.p99_seconds;
  const bool p95_over = p95 > evidence.p95_slo_seconds;
  const bool p99_over = p99 > evidence.p99_slo_seconds;
  if (!p95_over && !p99_over) {
    return;
  }
  const std::string primary =
      evidence.causes.empty() ? "unknown" : std::string(evidence.causes.front().name());
  const std::string summary = formatText(
      "%s: scheduling latency p95 %.1f s / p99 %.1f s over the SLO (%.0f s / %.0f s); "
      "likely cause: %s",
      evidence.profile.c_str(), p95, p99, evidence.p95_slo_seconds, evidence.p99_slo_seconds,
      primary.c_str());
  const double impact = std::max(p95 - evidence.p95_slo_seconds, p99 - evidence.p99_slo_seconds);
  Finding finding = findingOf(std::move(evidence));
  finding.severity = p95_over ? Severity::kCritical : Severity::kWarning;
  finding.target = std::move(target);
  finding.summary = summary;
  finding.impact = impact;
  out.emit(std::move(finding));
}

// kube-state-metrics only: created → scheduled of the pods scheduled in the window.
void fromPods(const AnalysisInput& input, FindingSink& out) {
  const auto& params = input.config.detectors.get<analysis::SchedulingLatencySettings>();
  std::vector<double> latencies;
  for (const model::Pod& pod : input.cluster.pods()) {
    if (pod.created && pod.scheduled && *pod.scheduled >= *pod.created) {
      latencies.push_back(*pod.scheduled - *pod.created);
    }
  }
  const auto min_pods = static_cast<std::size_t>(params.min_pods);
  if (latencies.size() < min_pods) {
    out.noAdvice(
        formatText("no kube-scheduler latency metrics, and only %zu pod(s) with creation "
                   "and scheduling times (at least %zu needed)",
                   latencies.size(), min_pods));
    return;
  }
  SchedulingLatencyEvidence evidence;
  evidence.profile = "all pods";
  evidence.source = "pod_times";
  evidence.p95_seconds = quantile(latencies, 0.95);
  evidence.p99_seconds = quantile(latencies, 0.99);
  evidence.pods = latencies.size();
  emitIfOver(params, "cluster/" + input.config.analysis.cluster, std::move(evidence), out);
}

}  // namespace

std::string_view SchedulingCause::name() const {
  switch (kind) {
    case Kind::kUnschedulable:
      return "unschedulable";
    case Kind::kFailedAttempts:
      return "failed_attempts";
    case Kind::kSchedulerErrors:
      return "scheduler_errors";
    case Kind::kSlowExtensionPoint:
      return "slow_extension_point";
    case Kind::kPreemption:
      return "preemption";
    case Kind::kQueue:
      return "queue";
  }
  return "unknown";
}

json SchedulingLatencyEvidence::toJson() const {
  json listed = json::array();
  for (const SchedulingCause& c : causes) {
    listed.push_back(causeJson(c));
  }
  json out = {{"profile", profile},
              {"source", source},
              {"p95_seconds", p95_seconds},
              {"p99_seconds", p99_seconds},
              {"p95_slo_seconds", p95_slo_seconds},
              {"p99_slo_seconds", p99_slo_seconds},
              {"causes", std::move(listed)}};
  if (pods) {
    out["pods"] = *pods;
  }
  if (pods_per_second) {
    out["pods_per_second"] = *pods_per_second;
  }
  return out;
}

const DetectorInfo& SchedulingLatency::info() const {
  static const DetectorInfo kInfo{SchedulingLatencyEvidence::kKind,
                                  "Pod scheduling latency p95/p99 over its SLO, with the cause"};
  return kInfo;
}

void SchedulingLatency::analyze(const AnalysisInput& input, FindingSink& out) const {
  const SchedulerStats& stats = input.cluster.scheduler();
  if (!stats.present) {
    fromPods(input, out);
    return;
  }
  bool measured = false;
  for (const model::ProfileLatency& profile : stats.latency) {
    // A missing quantile means no pods were scheduled in the window, not zero latency.
    if (!profile.p95 && !profile.p99) {
      continue;
    }
    measured = true;
    const std::string name = profile.profile.empty() ? "default-scheduler" : profile.profile;
    SchedulingLatencyEvidence evidence;
    evidence.profile = name;
    evidence.source = stats.latency_metric;
    evidence.p95_seconds = profile.p95.value_or(0);
    evidence.p99_seconds = profile.p99.value_or(0);
    evidence.causes = causes(stats);
    evidence.pods_per_second = profile.pods_per_second;
    emitIfOver(input.config.detectors.get<analysis::SchedulingLatencySettings>(), "profile/" + name,
               std::move(evidence), out);
  }
  if (!measured) {
    out.noAdvice(stats.latency.empty()
                     ? "the kube-scheduler metrics carry no scheduling latency histogram"
                     : "the kube-scheduler's latency histograms are empty: no pod was scheduled "
                       "in the window");
  }
}

std::vector<config::Field> SchedulingLatencySettings::fields() {
  return {
      {"enabled", &enabled, config::Rule::kNone, "Turn this check on or off."},
      {"p95_slo", &p95_slo, config::Rule::kPositive,
       "The objective for the 95th percentile of pod scheduling latency."},
      {"p99_slo", &p99_slo, config::Rule::kPositive, "The objective for the 99th percentile."},
      {"min_pods", &min_pods, config::Rule::kAtLeastOne,
       "Without the scheduler's own metrics, per-pod times need at least this many pods."},
  };
}

}  // namespace dagadvisor::analysis
