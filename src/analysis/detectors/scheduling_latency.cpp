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
json causes(const SchedulerStats& stats) {
  json out = json::array();
  const auto [plugin, rejected] = largest(stats.unschedulable_by_plugin);
  if (rejected > 0) {
    out.push_back({{"cause", "unschedulable"}, {"plugin", plugin}, {"pods", rejected}});
  }
  const double attempts = sum(stats.attempts_per_second);
  const auto failed = stats.attempts_per_second.find("unschedulable");
  if (attempts > 0 && failed != stats.attempts_per_second.end() &&
      failed->second / attempts >= kUnschedulableAttemptShare) {
    out.push_back({{"cause", "failed_attempts"}, {"share", failed->second / attempts}});
  }
  const auto errors = stats.attempts_per_second.find("error");
  if (errors != stats.attempts_per_second.end() && errors->second > 0) {
    out.push_back({{"cause", "scheduler_errors"}, {"per_second", errors->second}});
  }
  const auto [point, p99] = largest(stats.extension_point_p99);
  if (p99 >= kSlowExtensionPointSeconds) {
    out.push_back({{"cause", "slow_extension_point"}, {"extension_point", point}, {"p99", p99}});
  }
  if (stats.preemption_attempts_per_second > 0) {
    out.push_back({{"cause", "preemption"}, {"per_second", stats.preemption_attempts_per_second}});
  }
  const auto [queue, pending] = largest(stats.pending_by_queue);
  if (pending > 0) {
    out.push_back({{"cause", "queue"}, {"queue", queue}, {"pods", pending}});
  }
  return out;
}

struct Latency {
  std::string target;
  std::string profile;
  std::string source;
  double p95 = 0;
  double p99 = 0;
  json extra = json::object();
};

void emitIfOver(const DetectorInfo& info, const config::SchedulingLatency& params, const Latency& l,
                json cause_list, FindingSink& out) {
  const bool p95_over = l.p95 > params.p95_slo.count();
  const bool p99_over = l.p99 > params.p99_slo.count();
  if (!p95_over && !p99_over) {
    return;
  }
  Finding finding;
  finding.kind = std::string(info.kind);
  finding.severity = p95_over ? Severity::kCritical : Severity::kWarning;
  finding.target = l.target;
  const std::string primary =
      cause_list.empty() ? "unknown" : cause_list[0].value("cause", "unknown");
  finding.summary = formatText(
      "%s: scheduling latency p95 %.1f s / p99 %.1f s over the SLO (%.0f s / %.0f s); "
      "likely cause: %s",
      l.profile.c_str(), l.p95, l.p99, params.p95_slo.count(), params.p99_slo.count(),
      primary.c_str());
  finding.impact = std::max(l.p95 - params.p95_slo.count(), l.p99 - params.p99_slo.count());
  finding.evidence = {{"profile", l.profile},
                      {"source", l.source},
                      {"p95_seconds", l.p95},
                      {"p99_seconds", l.p99},
                      {"p95_slo_seconds", params.p95_slo.count()},
                      {"p99_slo_seconds", params.p99_slo.count()},
                      {"causes", std::move(cause_list)}};
  finding.evidence.update(l.extra);
  out.emit(std::move(finding));
}

// kube-state-metrics only: created → scheduled of the pods scheduled in the window.
void fromPods(const AnalysisInput& input, const DetectorInfo& info, FindingSink& out) {
  const auto& params = input.config.detectors.scheduling_latency;
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
  Latency l{"cluster/" + input.config.analysis.cluster, "all pods", "pod_times"};
  l.p95 = quantile(latencies, 0.95);
  l.p99 = quantile(latencies, 0.99);
  l.extra = {{"pods", latencies.size()}};
  emitIfOver(info, params, l, json::array(), out);
}

}  // namespace

const DetectorInfo& SchedulingLatency::info() const {
  static const DetectorInfo kInfo{"scheduling-latency",
                                  "Pod scheduling latency p95/p99 over its SLO, with the cause"};
  return kInfo;
}

void SchedulingLatency::analyze(const AnalysisInput& input, FindingSink& out) const {
  const SchedulerStats& stats = input.cluster.scheduler();
  if (!stats.present) {
    fromPods(input, info(), out);
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
    Latency l{"profile/" + name, name, stats.latency_metric};
    l.p95 = profile.p95.value_or(0);
    l.p99 = profile.p99.value_or(0);
    l.extra = {{"pods_per_second", profile.pods_per_second}};
    emitIfOver(info(), input.config.detectors.scheduling_latency, l, causes(stats), out);
  }
  if (!measured) {
    out.noAdvice(stats.latency.empty()
                     ? "the kube-scheduler metrics carry no scheduling latency histogram"
                     : "the kube-scheduler's latency histograms are empty: no pod was scheduled "
                       "in the window");
  }
}

}  // namespace dagadvisor::analysis
