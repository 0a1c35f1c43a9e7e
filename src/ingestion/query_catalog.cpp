#include "ingestion/query_catalog.h"

#include <chrono>
#include <initializer_list>
#include <string_view>
#include <utility>

#include "common/duration.h"

namespace dagadvisor::ingestion {
namespace {

constexpr std::string_view kPodKey = "namespace, pod, uid";
constexpr std::string_view kResources = R"(resource=~"cpu|memory|nvidia_com_gpu|amd_com_gpu")";
// Prometheus' default lookback delta: how long an instant query still returns a silent series.
constexpr int kLookbackDeltaSeconds = 300;
constexpr std::string_view kKnownPhases = R"(phase!="Unknown")";
constexpr std::string_view kRealContainers = R"(container!="", container!="POD")";

// `metric{matchers,selector}` with the user's selector (e.g. cluster="prod") appended.
std::string select(std::string_view metric, std::string_view matchers, std::string_view selector) {
  std::string out(metric);
  out += '{';
  out += matchers;
  if (!matchers.empty() && !selector.empty()) {
    out += ", ";
  }
  out += selector;
  out += '}';
  return out;
}

std::string aggregate(std::string_view op, std::string_view labels, const std::string& inner) {
  return std::string(op) + " (" + std::string(labels) + ") (" + inner + ")";
}

std::string maxBy(std::string_view labels, const std::string& inner) {
  return aggregate("max by", labels, inner);
}

// `time() - window`: the start of a window ending at the evaluation time, in whole seconds.
std::string windowStart(config::Seconds window) {
  return "time() - " + std::to_string(static_cast<long>(window.count()));
}

std::string range(config::Seconds window) {
  return "[" + formatDuration(std::chrono::duration_cast<Duration>(window)) + "]";
}

// Adds the constant label `name="value"`, so that several facts can share one query.
std::string tagged(const std::string& inner, std::string_view name, std::string_view value) {
  return "label_replace(" + inner + ", \"" + std::string(name) + "\", \"" + std::string(value) +
         "\", \"\", \"\")";
}

// `a or b or …`: the facts of one query, kept apart by their tags.
std::string either(std::initializer_list<std::string> parts, std::string_view on = {}) {
  std::string out;
  for (const std::string& part : parts) {
    if (!out.empty()) {
      out += on.empty() ? " or " : " or on (" + std::string(on) + ") ";
    }
    out += "(" + part + ")";
  }
  return out;
}

std::string joined(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& word : words) {
    out += (out.empty() ? "" : ", ") + word;
  }
  return out;
}

// Builds the queries that need more than one line each.
class Builder {
 public:
  explicit Builder(const config::PrometheusSource& s, PodFactKey key = PodFactKey::kNamespacePodUid)
      : s_(s),
        fact_key_(key == PodFactKey::kUid ? "uid" : kPodKey),
        lookback_(range(s.lookback)),
        facts_lookback_(range(s.lookback + config::Seconds(kLookbackDeltaSeconds))),
        rate_(range(s.rate_window)) {
    const std::string replicas = joined(s.replica_labels);
    dedup_ = replicas.empty() ? "max without (__name__)" : "max without (" + replicas + ")";
  }

  // A pod is in the lookback when one of its kube_pod_info series is.
  std::string recentInfo(std::string_view metric) const {
    return "last_over_time(" + select(metric, "", s_.selector) + lookback_ + ")";
  }

  // A pod's other facts are read over the lookback plus Prometheus' lookback delta: a series that
  // does not change may be re-written only every few minutes, so those of a deleted pod end up
  // to that delta apart, and a pod whose info is still in the lookback would otherwise show
  // without its completion, its final phase or its labels for its last minutes there.
  std::string recent(std::string_view metric, std::string_view matchers = {}) const {
    return "last_over_time(" + select(metric, matchers, s_.selector) + facts_lookback_ + ")";
  }

  // The family liveness is told by. Without staleness markers, kube_pod_info: the family whose
  // newest sample pod_seen reads and whose lookback pod_info reads; with another family a deleted
  // pod's last samples differ by up to a refresh interval between the two where series are
  // written only on change or every few minutes, and a window read would keep a pod a full read
  // drops. With them, every family of a deleted pod ends at the same scrape, so the smallest one
  // will do: kube_pod_created, one series of three labels a pod where kube_pod_info has ten (at
  // a tenth of the reference, pod_gone's evaluation 0.08-0.20 s instead of 0.14-0.36 s).
  std::string_view liveFamily() const {
    return s_.staleness_markers ? s_.metrics.pod_created : s_.metrics.pod_info;
  }

  // The pods (namespace, pod, uid) whose liveFamily() is still written. Where the TSDB writes
  // staleness markers, a deleted pod's series ends with one and an instant selection is exact
  // (one selection). Backfilled TSDBs have none, so a deleted pod's series answers instant
  // queries for Prometheus' whole lookback delta: there a series is live only if its newest
  // sample is within ~1.5 of its own sample intervals of the newest sample of the metric overall
  // (three selections: at the reference size ~5-6 s of Prometheus CPU instead of ~1.4 s). The
  // interval is estimated per series (lookback delta / samples in it), so any scrape interval
  // works and a series written only on change or every few minutes is not taken for deleted.
  // Relative to the newest sample, not to the evaluation time, so `--at` in the past works too.
  // Each pod's series are aggregated before the comparison with the newest of all: the same
  // pods, compared on three labels instead of ten.
  // `key`: the pod_live query's fact key, or the whole pod key where pod_gone matches on it.
  std::string live(std::string_view key) const {
    const std::string series = select(liveFamily(), "", s_.selector);
    if (s_.staleness_markers) {
      return maxBy(key, series);
    }
    const std::string delta = std::to_string(kLookbackDeltaSeconds);
    const std::string slack = std::to_string(kLookbackDeltaSeconds * 3 / 2);
    return maxBy(key, "timestamp(" + series + ") + " + slack + " / count_over_time(" + series +
                          "[" + delta + "s])") +
           " >= scalar(max(timestamp(" + series + ")))";
  }

  std::string newestSample(config::Seconds window) const {
    const std::string stamps = "timestamp(" + select(s_.metrics.pod_info, "", s_.selector) + ")";
    const std::string step = std::to_string(kLookbackDeltaSeconds) + "s";
    return maxBy(kPodKey,
                 either({stamps, "last_over_time(" + stamps + "[" +
                                     formatDuration(std::chrono::duration_cast<Duration>(window)) +
                                     ":" + step + "])"}));
  }

  // The pods an incremental window read must read again (IncrementalReader): created or finished
  // in the window (kNewOrFinished), and of the pods `s_.selector` lists (kBoundOrLeftPending:
  // those the last read left unbound or Pending) bound in it or leaving Pending; kAll asks both of
  // every pod. Each family is selected once per pod, and the answer holds only the pods that
  // changed. What else changes is caught:
  //  - a start time: the kubelet writes it when it takes the bound pod, seconds after the binding,
  //    whose time keeps the pod read again for `margin` after it; one written later shows when
  //    the pod leaves Pending;
  //  - leaving Running: for Succeeded or Failed, with a completion time (kube-state-metrics' is
  //    the newest container termination, which a pod leaving Running has). No pod enters Pending
  //    or Running but a new one, which its creation time names;
  //  - only a pod unbound or Pending at the last read can be bound or leave Pending after it,
  //    bar one created since, which its creation time names. The two families are therefore
  //    asked of those few pods by uid: each selection of a family of every pod costs ~0.9 s of
  //    Prometheus CPU at the reference size, whatever it answers.
  std::string changed(config::Seconds window, PodChangeParts parts) const {
    const auto& m = s_.metrics;
    const std::string since = windowStart(window);
    const std::string in_window = range(window);
    auto recentTime = [&](const std::string& metric) {
      return "last_over_time(" + select(metric, "", s_.selector) + in_window + ") > " + since;
    };
    if (parts == PodChangeParts::kNewOrFinished) {
      return maxBy(kPodKey, either({recentTime(m.pod_created), recentTime(m.pod_completion_time)}));
    }
    if (parts == PodChangeParts::kFinished) {
      return maxBy(kPodKey, recentTime(m.pod_completion_time));
    }
    const std::string left_pending =
        "changes(" + select(m.pod_phase, R"(phase="Pending")", s_.selector) + in_window + ") > 0";
    if (parts == PodChangeParts::kBoundOrLeftPending) {
      return maxBy(kPodKey, either({recentTime(m.pod_scheduled_time), left_pending}));
    }
    return maxBy(kPodKey, either({recentTime(m.pod_created), recentTime(m.pod_scheduled_time),
                                  recentTime(m.pod_completion_time), left_pending}));
  }

  // The pods with a sample of liveFamily() in the window that are not live now (see live()):
  // deleted since the previous read, or shortly before it. Not aggregated: the reader takes each
  // pod once, and a `max by` over every pod's series was a tenth of the query's cost. For the
  // same reason the live side is the bare selection where it is one (`unless` matches many to
  // many): at the reference size 1.05-1.24 s of Prometheus CPU instead of 1.35-1.40 s.
  std::string gone(config::Seconds window) const {
    const std::string live_side =
        s_.staleness_markers ? select(liveFamily(), "", s_.selector) : live(kPodKey);
    return "last_over_time(" + select(liveFamily(), "", s_.selector) + range(window) +
           ") unless on (" + std::string(kPodKey) + ") " + live_side;
  }

  // With staleness markers, pod_gone and pod_changed's creation part in one query, which selects
  // kube_pod_created over the window and at the instant once each where the two select it three
  // times: the pods with a sample in the window but those live now and created before it. Each
  // series' value is the pod's creation time, the same in both selections, so a pod answered with
  // one before the window is gone; one created in it may be either (podCreatedOrGoneQuery).
  std::string createdOrGone(config::Seconds window) const {
    const std::string series = select(s_.metrics.pod_created, "", s_.selector);
    return "last_over_time(" + series + range(window) + ") unless on (" + std::string(kPodKey) +
           ") (" + series + " <= " + windowStart(window) + ")";
  }

  // Each pod's current phase (value 1) among `series`, the phase family without Unknown.
  std::string phase(const std::string& series) const {
    return maxBy(fact("phase"), series + " == 1");
  }

  std::string phaseNow() const {
    return phase(select(s_.metrics.pod_phase, kKnownPhases, s_.selector));
  }

  std::string pod(std::string_view extra) const { return withKey(kPodKey, extra); }

  // The labels a pod fact is aggregated by: its pod key (PodFactKey) and `extra`.
  std::string fact(std::string_view extra) const { return withKey(fact_key_, extra); }

  std::string live() const { return live(fact_key_); }

  // pod_annotations: every annotation, or those of `keys` (AnnotationKeys). Only the series of a
  // pod with one of the keys are selected, one selection per key (a pod with several is selected
  // once for each; `or` keeps one), unless `of_pods`: a selector naming a few pods, whose series
  // are then selected once (per key, each uid list was 0.09-0.11 s of Prometheus CPU instead of
  // 0.01-0.02 s). At the reference size the keyed full query cost 0.25-0.52 s against 0.99-1.98 s
  // for the whole family, and answered 3.0 of 27.8 MB.
  std::string annotations(const AnnotationKeys& keys, bool of_pods) const {
    if (!keys || keys->empty()) {
      return recent(s_.metrics.pod_annotations);
    }
    std::string by(fact_key_);
    for (const std::string& key : *keys) {
      by += ", annotation_" + key;
    }
    if (of_pods) {
      return maxBy(by, recent(s_.metrics.pod_annotations));
    }
    std::string any;
    for (const std::string& key : *keys) {
      any += (any.empty() ? "" : " or ") +
             recent(s_.metrics.pod_annotations, "annotation_" + key + R"(!="")");
    }
    return maxBy(by, any);
  }

  // What the diagnosis and the advice read of pod specs besides requests, tagged spec=…: the
  // tolerations and node selectors of the pods pending unbound at the analysis time (joined on
  // kube_pod_info{node=""}, the only pods the diagnosis needs them for), with one count per family
  // telling a family kube-state-metrics does not export from pods that have none.
  //
  // Cost at the reference size (150,000 pods, ~2.5 tolerations each, ~1,500 pending): the
  // toleration selector touches ~375,000 series and the node-selector one ~150,000 (one sample
  // each: instant, no range), twice (the join and the count); the answer holds only the pending
  // pods' ~4,000 toleration and ~1,500 node-selector series plus two counts, instead of the
  // ~525,000 series (~100 MB of JSON) that reading both families whole would send.
  std::string podSpec(PodSpecParts parts) const {
    const std::string unbound = select(s_.metrics.pod_info, R"(node="")", s_.selector);
    auto ofUnbound = [&](const std::string& metric) {
      const std::string series = select(metric, "", s_.selector);
      // The selector of a uid list already names the few pods wanted.
      return parts == PodSpecParts::kOfPods
                 ? series
                 : series + " and on (" + std::string(kPodKey) + ") " + unbound;
    };
    auto exported = [&](const std::string& metric, std::string_view tag) {
      return tagged("count (" + select(metric, "", s_.selector) + ")", "spec", tag);
    };
    const auto& m = s_.metrics;
    const std::string toleration =
        tagged(maxBy(pod("key, operator, value, effect, toleration_seconds"),
                     ofUnbound(m.pod_tolerations)),
               "spec", "toleration");
    // Its labels are the selector's keys (nodeselector_<key>): no `by` list can name them.
    const std::string node_selector =
        tagged(dedup_ + " (" + ofUnbound(m.pod_nodeselectors) + ")", "spec", "node_selector");
    const std::string tolerations_exported = exported(m.pod_tolerations, "tolerations_exported");
    const std::string selectors_exported = exported(m.pod_nodeselectors, "node_selectors_exported");
    switch (parts) {
      case PodSpecParts::kOfPods:
        return either({toleration, node_selector});
      case PodSpecParts::kTolerationsExported:
        return tolerations_exported;
      case PodSpecParts::kNodeSelectorsExported:
        return selectors_exported;
      case PodSpecParts::kAll:
        break;
    }
    return either({toleration, node_selector, tolerations_exported, selectors_exported});
  }

  // Each app container's requests by name, and each pod's largest init container per resource,
  // told apart by the init series having no `container` label: the builder sums the app
  // containers into the pod's requests, keeps them by name (patches merge containers by name)
  // and takes the larger of the sum and the init container (what the scheduler reserves). The
  // containers' requests are selected once: summing them here and reading them by name again
  // in pod_spec read the largest pod family twice (issue #18).
  std::string podRequests() const {
    const std::string app =
        maxBy(fact("container, resource"), recent(s_.metrics.pod_requests, kResources));
    const std::string init =
        maxBy(fact("resource"), recent(s_.metrics.pod_init_requests, kResources));
    return either({app, init});
  }

  // One event of a pod (created, bound, started, finished): the newest over the lookback.
  std::string podTime(const std::string& metric) const { return maxBy(fact_key_, recent(metric)); }

  // The first configured histogram that exists wins (`or on (profile, stat)`), so one list covers
  // clusters from the e2e histogram to the SLI one; classic `_bucket` series and native
  // histograms are both understood.
  std::string schedulingLatency() const {
    std::string out;
    for (const std::string& metric : s_.metrics.scheduling_latency) {
      std::string one =
          tagged(either({quantile(metric, "0.5", "p50"), quantile(metric, "0.95", "p95"),
                         quantile(metric, "0.99", "p99"), observationRate(metric)}),
                 "metric", metric);
      out = out.empty() ? one : either({out, one}, "profile, stat");
    }
    return out;
  }

  std::string schedulerSignals() const {
    const auto& m = s_.metrics;
    auto sumBy = [&](std::string_view by, const std::string& inner) {
      return aggregate("sum by", by, dedup_ + " (" + inner + ")");
    };
    auto rate = [&](const std::string& metric) {
      return "rate(" + select(metric, "", s_.selector) + rate_ + ")";
    };
    const std::string extension =
        "histogram_quantile(0.99, " +
        sumBy("extension_point, le", rate(m.scheduler_extension_point_duration + "_bucket")) + ")";
    return either({
        tagged(sumBy("queue", select(m.scheduler_pending_pods, "", s_.selector)), "signal",
               "pending"),
        tagged(sumBy("plugin", select(m.scheduler_unschedulable_pods, "", s_.selector)), "signal",
               "unschedulable"),
        tagged(sumBy("result", rate(m.scheduler_schedule_attempts)), "signal", "attempts"),
        tagged("sum (" + dedup_ + " (" + rate(m.scheduler_preemption_attempts) + "))", "signal",
               "preemption"),
        tagged(extension, "signal", "extension_p99"),
    });
  }

  // Right-sizing reads a percentile of the 5-minute CPU rate and the peak working set over days,
  // sampled every 5 minutes: the same resolution the right-sizing tools use.
  std::string podCpuUsage() const {
    return overUsageWindow("quantile_over_time(" + std::to_string(s_.usage_cpu_quantile) + ", ",
                           podCpu(), s_.metrics.recorded_pod_cpu_rate);
  }

  // The CPU rate's samples in the window: how many days the percentile stands on.
  std::string podUsageSamples() const {
    return overUsageWindow("count_over_time(", podCpu(), s_.metrics.recorded_pod_cpu_rate);
  }

  std::string podMemoryUsage() const {
    return overUsageWindow(
        "max_over_time(",
        perPod(select(s_.metrics.container_memory_working_set, kRealContainers, s_.selector)),
        s_.metrics.recorded_pod_memory);
  }

  // dcgm-exporter names the pod `pod`, `exported_pod` or `pod_name` depending on its version and
  // on honor_labels; all three are folded into `pod` (and `namespace` likewise).
  std::string podGpuUsage() const {
    std::string series = select(s_.metrics.gpu_utilization, "", s_.selector);
    for (const char* alias : {"exported_pod", "pod_name"}) {
      series = "label_replace(" + series + ", \"pod\", \"$1\", \"" + alias + "\", \"(.+)\")";
    }
    series = "label_replace(" + series + R"q(, "namespace", "$1", "exported_namespace", "(.+)"))q";
    // Averaged over the pod's GPUs after the window; the recorded series is already per pod.
    if (!s_.usage_from_recording_rules) {
      return "avg by (namespace, pod) (avg_over_time(" + series + usageWindow() + "))";
    }
    return overUsageWindow("avg_over_time(", series, s_.metrics.recorded_pod_gpu_utilization);
  }

 private:
  static std::string withKey(std::string_view key, std::string_view extra) {
    return std::string(key) + (extra.empty() ? "" : ", ") + std::string(extra);
  }

  std::string quantile(const std::string& metric, std::string_view q, std::string_view stat) const {
    const std::string classic = "histogram_quantile(" + std::string(q) +
                                ", sum by (profile, le) (" + dedup_ + " (rate(" +
                                select(metric + "_bucket", "", s_.selector) + rate_ + "))))";
    const std::string native = "histogram_quantile(" + std::string(q) +
                               ", sum by (profile) (rate(" + select(metric, "", s_.selector) +
                               rate_ + ")))";
    return tagged(either({classic, native}), "stat", stat);
  }

  std::string observationRate(const std::string& metric) const {
    const std::string classic = "sum by (profile) (" + dedup_ + " (rate(" +
                                select(metric + "_count", "", s_.selector) + rate_ + ")))";
    const std::string native =
        "histogram_count(sum by (profile) (rate(" + select(metric, "", s_.selector) + rate_ + ")))";
    return tagged(either({classic, native}), "stat", "rate");
  }

  std::string usageDuration() const {
    return formatDuration(std::chrono::duration_cast<Duration>(s_.usage_window));
  }

  std::string usageWindow() const { return "[" + usageDuration() + ":5m]"; }

  // `function(<per-pod figure>[usage_window:5m])`, or with usage_from_recording_rules the same
  // function over the series the mixin's rule records from that figure every 5 minutes: a range
  // function over one series a pod, where the subquery evaluates every container's series at
  // each of the window's 288 steps (a tenth of the reference: 0.23 s of Prometheus CPU for the
  // three figures instead of 2.64 s). `max by` keeps one series a pod where several recorders
  // (HA rule evaluators, clusters without a selector) wrote it.
  std::string overUsageWindow(std::string_view function, const std::string& per_pod,
                              const std::string& recorded) const {
    if (!s_.usage_from_recording_rules) {
      return std::string(function) + per_pod + usageWindow() + ")";
    }
    return maxBy("namespace, pod", std::string(function) + select(recorded, "", s_.selector) + "[" +
                                       usageDuration() + "])");
  }

  static std::string perPod(const std::string& inner) {
    return aggregate("sum by", "namespace, pod", maxBy("namespace, pod, container", inner));
  }

  std::string podCpu() const {
    return perPod("rate(" + select(s_.metrics.container_cpu_usage, kRealContainers, s_.selector) +
                  "[5m])");
  }

  const config::PrometheusSource& s_;
  std::string_view fact_key_;
  std::string lookback_;
  std::string facts_lookback_;
  std::string rate_;
  std::string dedup_;
};

}  // namespace

QueryCatalog::QueryCatalog(const config::PrometheusSource& s, PodFactKey key,
                           const AnnotationKeys& annotations) {
  const auto& m = s.metrics;
  const std::string& sel = s.selector;
  const Builder b(s, key);
  auto set = [&](QueryId id, std::string name, std::string promql) {
    queries_[static_cast<std::size_t>(id)] = {std::move(name), std::move(promql)};
  };
  set(QueryId::kNodeAllocatable, "node_allocatable",
      maxBy("node, resource", select(m.node_allocatable, kResources, sel)));
  // Label sets are identical across replicas, so duplicates only repeat the same facts.
  set(QueryId::kNodeLabels, "node_labels", select(m.node_labels, "", sel));
  set(QueryId::kNodeTaints, "node_taints",
      maxBy("node, key, value, effect", select(m.node_taint, "", sel)));
  set(QueryId::kPodInfo, "pod_info",
      maxBy(b.pod("node, created_by_kind, created_by_name, priority_class"),
            b.recentInfo(m.pod_info)));
  set(QueryId::kPodLive, "pod_live", b.live());
  // The current phase's series only (value 1) go into the aggregation: one of a pod's five
  // (at the reference size 3.9-5.8 s of Prometheus CPU, 4 runs, against 5.3-6.5 s when filtered
  // after it). The Unknown series is not selected: a pod none of whose other phases is current
  // gets no answer and stays Unknown, as it would with it, and the selection is a fifth smaller
  // (at the reference size 7.1 M samples instead of 8.9 M).
  set(QueryId::kPodPhase, "pod_phase", b.phase(b.recent(m.pod_phase, kKnownPhases)));
  set(QueryId::kPodRequests, "pod_requests", b.podRequests());
  set(QueryId::kPodLabels, "pod_labels", b.recent(m.pod_labels));
  set(QueryId::kPodAnnotations, "pod_annotations", b.annotations(annotations, false));
  set(QueryId::kPodOwner, "pod_owner",
      maxBy(b.fact("owner_kind, owner_name"), b.recent(m.pod_owner)));
  set(QueryId::kPodCreated, "pod_created", b.podTime(m.pod_created));
  set(QueryId::kPodScheduled, "pod_scheduled", b.podTime(m.pod_scheduled_time));
  set(QueryId::kPodStarted, "pod_started", b.podTime(m.pod_start_time));
  set(QueryId::kPodFinished, "pod_finished", b.podTime(m.pod_completion_time));
  set(QueryId::kSchedulingLatency, "scheduling_latency", b.schedulingLatency());
  set(QueryId::kSchedulerSignals, "scheduler_signals", b.schedulerSignals());
  set(QueryId::kPodUsageCpu, "pod_usage_cpu", b.podCpuUsage());
  set(QueryId::kPodUsageMemory, "pod_usage_memory", b.podMemoryUsage());
  set(QueryId::kPodUsageSamples, "pod_usage_samples", b.podUsageSamples());
  set(QueryId::kPodUsageGpu, "pod_usage_gpu", b.podGpuUsage());
  // Optional: snapshots recorded before it lack it, and only the advice's patches and the
  // constraint checks need it.
  set(QueryId::kPodSpec, "pod_spec", b.podSpec(PodSpecParts::kAll));
}

sources::Query podNewestSampleQuery(const config::PrometheusSource& settings,
                                    config::Seconds range) {
  return {"pod_seen", Builder(settings).newestSample(range)};
}

sources::Query podAnnotationsOfPodsQuery(const config::PrometheusSource& settings, PodFactKey key,
                                         const AnnotationKeys& annotations) {
  return {"pod_annotations", Builder(settings, key).annotations(annotations, true)};
}

sources::Query podPhaseNowQuery(const config::PrometheusSource& settings, PodFactKey key) {
  return {"pod_phase", Builder(settings, key).phaseNow()};
}

sources::Query podChangesQuery(const config::PrometheusSource& settings, config::Seconds window,
                               PodChangeParts parts) {
  return {"pod_changed", Builder(settings).changed(window, parts)};
}

sources::Query podGoneQuery(const config::PrometheusSource& settings, config::Seconds window) {
  return {"pod_gone", Builder(settings).gone(window)};
}

sources::Query podCreatedOrGoneQuery(const config::PrometheusSource& settings,
                                     config::Seconds window) {
  return {"pod_created_or_gone", Builder(settings).createdOrGone(window)};
}

sources::Query stalenessMarkersSeenQuery(const config::PrometheusSource& settings) {
  const std::string series = select(settings.metrics.pod_created, "", settings.selector);
  // Shorter than the lookback delta: every series the range holds answers the instant selection
  // too, unless a marker ended it.
  return {"staleness_markers_seen",
          "count (last_over_time(" + series + "[290s]) unless " + series + ")"};
}

sources::Query podSpecQuery(const config::PrometheusSource& settings, PodSpecParts parts) {
  return {"pod_spec", Builder(settings).podSpec(parts)};
}

std::string matcherAnyOf(std::string_view label, std::span<const std::string_view> values) {
  std::string out = std::string(label) + "=~\"";
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) {
      out += '|';
    }
    for (const char c : values[i]) {
      if (std::string_view(R"(\.+*?()|[]{}^$)").find(c) != std::string_view::npos) {
        out += "\\\\";
      } else if (c == '"') {
        out += '\\';
      }
      out += c;
    }
  }
  return out + "\"";
}

config::PrometheusSource withSelector(config::PrometheusSource settings, const std::string& extra) {
  settings.selector = settings.selector.empty() ? extra : settings.selector + ", " + extra;
  return settings;
}

sources::Query podNetworkReceiveQuery(const config::PrometheusSource& settings,
                                      ReceiveFigure figure, std::string name) {
  const char* function = figure == ReceiveFigure::kTotal ? "max_over_time(" : "avg_over_time(";
  const std::string series =
      select(settings.metrics.container_network_receive, R"(interface!="lo")", settings.selector);
  return {std::move(name), aggregate("sum by", "namespace, pod",
                                     maxBy("namespace, pod, interface",
                                           function + series + range(settings.lookback) + ")"))};
}

}  // namespace dagadvisor::ingestion
