#include "analysis/detectors/scheduling_latency.h"

#include <algorithm>
#include <tuple>

#include "analysis/detectors/detector_util.h"

namespace dagadvisor::analysis {
namespace {

using model::SchedulerStats;
using nlohmann::json;

// The pending pods a finding lists by name; the counts cover all of them.
constexpr std::size_t kListedPendingPods = 5;

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

json pendingJson(const PendingWait& w) {
  json oldest = json::array();
  for (const WaitingPod& p : w.oldest) {
    oldest.push_back({{"namespace", p.namespace_},
                      {"pod", p.pod},
                      {"age_seconds", p.age_seconds},
                      {"gpus", p.gpus}});
  }
  return {{"pods", w.pods},
          {"over_slo", w.over_slo},
          {"gpu_pods", w.gpu_pods},
          {"gpu_over_slo", w.gpu_over_slo},
          {"oldest_seconds", w.oldest_seconds},
          {"median_seconds", w.median_seconds},
          {"oldest_gpu_seconds", w.oldest_gpu_seconds},
          {"oldest", std::move(oldest)},
          {"basis", "measured"}};
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

// kube-state-metrics only: created → scheduled of the pods scheduled in the window. Returns why
// it could not judge, or "".
std::string fromPods(const AnalysisInput& input, FindingSink& out) {
  const auto& params = input.config.detectors.get<analysis::SchedulingLatencySettings>();
  std::vector<double> latencies;
  for (const model::Pod& pod : input.cluster.pods()) {
    if (pod.created && pod.scheduled && *pod.scheduled >= *pod.created) {
      latencies.push_back(*pod.scheduled - *pod.created);
    }
  }
  const auto min_pods = static_cast<std::size_t>(params.min_pods);
  if (latencies.size() < min_pods) {
    return formatText(
        "no kube-scheduler latency metrics, and only %zu pod(s) with creation and scheduling "
        "times (at least %zu needed)",
        latencies.size(), min_pods);
  }
  SchedulingLatencyEvidence evidence;
  evidence.profile = "all pods";
  evidence.source = "pod_times";
  evidence.p95_seconds = quantile(latencies, 0.95);
  evidence.p99_seconds = quantile(latencies, 0.99);
  evidence.pods = latencies.size();
  emitIfOver(params, "cluster/" + input.config.analysis.cluster, std::move(evidence), out);
  return "";
}

// kube-scheduler's histograms, one finding per profile over its SLO. Returns why it could not
// judge, or "".
std::string fromHistograms(const AnalysisInput& input, FindingSink& out) {
  const SchedulerStats& stats = input.cluster.scheduler();
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
  if (measured) {
    return "";
  }
  return stats.latency.empty() ? "the kube-scheduler metrics carry no scheduling latency histogram"
                               : "the kube-scheduler's latency histograms are empty: no pod was "
                                 "scheduled in the window";
}

std::vector<WaitingPod> waitingPods(const model::ClusterSnapshot& cluster) {
  std::vector<WaitingPod> out;
  for (model::PodId id : cluster.pendingPods()) {
    const model::Pod& pod = cluster.pod(id);
    if (pod.created && *pod.created <= cluster.at()) {
      out.push_back({pod.namespace_, pod.name, cluster.at() - *pod.created, pod.requests.gpus});
    }
  }
  std::sort(out.begin(), out.end(), [](const WaitingPod& a, const WaitingPod& b) {
    return a.age_seconds != b.age_seconds
               ? a.age_seconds > b.age_seconds
               : std::tie(a.namespace_, a.pod) < std::tie(b.namespace_, b.pod);
  });
  return out;
}

PendingWait pendingWait(std::vector<WaitingPod> waiting, double slo_seconds) {
  PendingWait wait;
  std::vector<double> ages;
  for (const WaitingPod& w : waiting) {
    const bool over = w.age_seconds > slo_seconds;
    ++wait.pods;
    wait.over_slo += over ? 1 : 0;
    if (w.gpus > 0) {
      ++wait.gpu_pods;
      wait.gpu_over_slo += over ? 1 : 0;
      wait.oldest_gpu_seconds = std::max(wait.oldest_gpu_seconds, w.age_seconds);
    }
    ages.push_back(w.age_seconds);
  }
  wait.oldest_seconds = waiting.empty() ? 0 : waiting.front().age_seconds;
  wait.median_seconds = quantile(ages, 0.5);
  waiting.resize(std::min(waiting.size(), kListedPendingPods));
  wait.oldest = std::move(waiting);
  return wait;
}

std::string pendingSummary(const PendingWait& w, double slo_seconds, const std::string& cause) {
  const std::string gpu_age =
      w.gpu_pods > 0 ? formatText(" (GPU pods: %.0f min)", w.oldest_gpu_seconds / 60) : "";
  return formatText(
      "%zu pod(s) pending longer than the p99 SLO (%.0f s), %zu of them requesting GPUs; the "
      "oldest waits %.0f min%s, the median pending pod %.0f min; not yet in the scheduler's "
      "histogram; likely cause: %s",
      w.over_slo, slo_seconds, w.gpu_over_slo, w.oldest_seconds / 60, gpu_age.c_str(),
      w.median_seconds / 60, cause.c_str());
}

// The pods still pending: a queue that does not drain is a latency finding before any of its
// pods reaches the histogram.
void fromPendingPods(const AnalysisInput& input, FindingSink& out) {
  const auto& params = input.config.detectors.get<analysis::SchedulingLatencySettings>();
  const double slo = params.p99_slo.count();
  PendingWait wait = pendingWait(waitingPods(input.cluster), slo);
  if (wait.over_slo == 0) {
    return;
  }
  SchedulingLatencyEvidence evidence;
  evidence.profile = "pending pods";
  evidence.source = "pending_pods";
  evidence.p95_slo_seconds = params.p95_slo.count();
  evidence.p99_slo_seconds = slo;
  if (input.cluster.scheduler().present) {
    evidence.causes = causes(input.cluster.scheduler());
  }
  const std::string cause =
      evidence.causes.empty() ? "unknown" : std::string(evidence.causes.front().name());
  const std::string summary = pendingSummary(wait, slo, cause);
  const double impact = wait.oldest_seconds - slo;
  evidence.pending = std::move(wait);
  Finding finding = findingOf(std::move(evidence));
  finding.severity = Severity::kWarning;
  finding.target = "cluster/" + input.config.analysis.cluster + "/pending";
  finding.summary = summary;
  finding.impact = impact;
  out.emit(std::move(finding));
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
              {"p95_slo_seconds", p95_slo_seconds},
              {"p99_slo_seconds", p99_slo_seconds},
              {"causes", std::move(listed)}};
  // Quantiles are of scheduled pods; a pending-pods finding has ages instead.
  if (!pending) {
    out["p95_seconds"] = p95_seconds;
    out["p99_seconds"] = p99_seconds;
  }
  if (pods) {
    out["pods"] = *pods;
  }
  if (pods_per_second) {
    out["pods_per_second"] = *pods_per_second;
  }
  if (pending) {
    out["pending"] = pendingJson(*pending);
  }
  return out;
}

const DetectorInfo& SchedulingLatency::info() const {
  static const DetectorInfo kInfo{SchedulingLatencyEvidence::kKind,
                                  "Pod scheduling latency p95/p99 over its SLO, with the cause"};
  return kInfo;
}

void SchedulingLatency::analyze(const AnalysisInput& input, FindingSink& out) const {
  const std::string reason =
      input.cluster.scheduler().present ? fromHistograms(input, out) : fromPods(input, out);
  fromPendingPods(input, out);
  // Pending pods judged alone are still a judgement: the reason stands only when nothing did.
  if (!reason.empty() && out.findings().empty()) {
    out.noAdvice(reason);
  }
}

std::vector<config::Field> SchedulingLatencySettings::fields() {
  return {
      {"enabled", &enabled, config::Rule::kNone, "Turn this check on or off."},
      {"p95_slo", &p95_slo, config::Rule::kPositive,
       "The objective for the 95th percentile of pod scheduling latency."},
      {"p99_slo", &p99_slo, config::Rule::kPositive,
       "The objective for the 99th percentile; a pod still pending longer than this is "
       "reported too."},
      {"min_pods", &min_pods, config::Rule::kAtLeastOne,
       "Without the scheduler's own metrics, per-pod times need at least this many pods."},
  };
}

}  // namespace dagadvisor::analysis
