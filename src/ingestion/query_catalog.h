#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "config/config.h"
#include "sources/metrics_source.h"

namespace dagadvisor::ingestion {

/// Every PromQL the cycle sends, in one place: 21 per cycle, so the load on Prometheus
/// stays flat whatever the cluster size. Each query is aggregated on the server (`max by`, or `max
/// without` the replica labels) so that HA Prometheus pairs and sharded kube-state-metrics never
/// double-count, and pod queries look back over `lookback` (`last_over_time`) so pods deleted after
/// finishing are still seen. Small facts of one shape share a query, told apart by a label the
/// query adds (`stat`, `signal`, `spec`); the per-pod facts each have a query of their own (a
/// pod's times, its usage figures), so that every series is selected once per query, no pod
/// series is relabelled, and each answer holds one series per pod, whatever the number of facts:
/// under `max_series_per_query` where four facts in one answer were not (twice the reference
/// size, docs/performance.md).
enum class QueryId : std::size_t {
  kNodeAllocatable,
  kNodeLabels,
  kNodeTaints,
  kPodInfo,
  kPodLive,  // pods whose newest sample is current: deleted ones are history only
  kPodPhase,
  kPodRequests,
  kPodLabels,
  kPodAnnotations,
  kPodOwner,
  kPodCreated,  // the pod's times (kube_pod_created, …), one query per event
  kPodScheduled,
  kPodStarted,
  kPodFinished,
  kSchedulingLatency,  // stat="p50|p95|p99|rate", by profile, from the first histogram that exists
  kSchedulerSignals,   // signal="pending|unschedulable|attempts|preemption|extension_p99"
  kPodUsageCpu,        // usage over `usage_window`, by namespace and pod, one query per figure
  kPodUsageMemory,
  kPodUsageSamples,
  kPodUsageGpu,
  kPodSpec,  // spec="toleration" and "node_selector": those of pods pending unbound now;
             // spec="*_exported": the family answered at all
  kCount
};

inline constexpr std::size_t kQueryCount = static_cast<std::size_t>(QueryId::kCount);

inline bool isPodTime(QueryId id) {
  return id >= QueryId::kPodCreated && id <= QueryId::kPodFinished;
}
inline bool isPodUsage(QueryId id) {
  return id >= QueryId::kPodUsageCpu && id <= QueryId::kPodUsageGpu;
}

/// How the pod queries but pod_info name a pod. kNamespacePodUid: by namespace, pod and uid,
/// which every exporter answers. kUid: by uid alone, which kube-state-metrics 2.x
/// labels every pod series with; ClusterBuilder joins them to pod_info's by uid. At the reference
/// size a full read then receives 47 MB less JSON (211 of 258 MB) and costs Prometheus ~2 s less
/// CPU (docs/performance.md). Where a family lacks uid, all its pods fold into one series without
/// it (ClusterBuilder::answeredWithoutUid): the read asks again with kNamespacePodUid.
enum class PodFactKey { kNamespacePodUid, kUid };

/// The annotations pod_annotations asks: `keys` only (kube-state-metrics' spelling, without
/// "annotation_": model::podAnnotationsRead, what the engine adapters read), or every annotation
/// (nullopt, or no key at all: what a recording keeps, for replays under other settings). At the
/// reference size the keys' series are ~3 MB of the family's ~28 MB, and only theirs are selected.
using AnnotationKeys = std::optional<std::vector<std::string>>;

class QueryCatalog {
 public:
  /// Builds every query from the configured metric names, extra selector and lookback.
  explicit QueryCatalog(const config::PrometheusSource& settings,
                        PodFactKey key = PodFactKey::kNamespacePodUid,
                        const AnnotationKeys& annotations = std::nullopt);

  const sources::Query& get(QueryId id) const { return queries_[static_cast<std::size_t>(id)]; }
  const std::array<sources::Query, kQueryCount>& all() const { return queries_; }
  /// Optional data (scheduler, usage, pod spec) may be missing or refused by a backend: its failure
  /// is a data-quality warning, not a failed cycle.
  static bool isOptional(QueryId id) {
    return id == QueryId::kSchedulingLatency || id == QueryId::kSchedulerSignals ||
           isPodUsage(id) || id == QueryId::kPodSpec;
  }

 private:
  std::array<sources::Query, kQueryCount> queries_;
};

/// Not in the catalog: what an incremental read (incremental_reader.h) adds to know when a kept
/// pod leaves the lookback. The time of each pod's newest kube_pod_info sample within `range`:
/// `timestamp()` of the instant selection (the newest within Prometheus' 5-minute lookback delta),
/// or else the last point of a subquery stepping by that delta over `range` (the last step that
/// still sees a series sees its newest sample). Exact where no staleness marker follows the
/// newest sample (backfills); up to 5 minutes early where one does (deleted pods of real scrapes).
sources::Query podNewestSampleQuery(const config::PrometheusSource& settings,
                                    config::Seconds range);

/// pod_phase of the pods whose phase series are still written (an instant selection): what an
/// incremental full read asks of every pod, the catalog's range over the lookback then asked only
/// of the pods not live. A live pod's newest sample is the same either way, and the instant
/// selection reads one sample a series where the range reads every sample of the lookback.
sources::Query podPhaseNowQuery(const config::PrometheusSource& settings, PodFactKey key);

/// Not in the catalog either: how an incremental window read finds what it must read again.
/// pod_changed: the pods (namespace, pod, uid) created, bound, started or finished within
/// `window` before the evaluation time, or that left or entered Pending or Running in it (kAll).
/// Its parts: created or finished (kNewOrFinished), bound or left Pending (kBoundOrLeftPending:
/// what can change only of a pod that was unbound or Pending, asked of those by uid), finished
/// (kFinished: where podCreatedOrGoneQuery tells the created ones).
/// pod_gone: the pods with a kube_pod_info sample in `window` that are not live now.
enum class PodChangeParts { kAll, kNewOrFinished, kBoundOrLeftPending, kFinished };
sources::Query podChangesQuery(const config::PrometheusSource& settings, config::Seconds window,
                               PodChangeParts parts = PodChangeParts::kAll);
sources::Query podGoneQuery(const config::PrometheusSource& settings, config::Seconds window);
/// pod_created_or_gone, only where the TSDB writes staleness markers (the live pods are then the
/// bare selection of kube_pod_created): the pods with a kube_pod_created sample in `window`, but
/// those live now and created before it, valued by their creation time. One answered as created
/// before `window` is gone; one created in it is new, and may be gone too (pod_gone tells, by
/// uid). What pod_gone of every pod and pod_changed's creation part answer together, for one
/// selection of every pod's series less (at the reference size ~0.5 s of Prometheus CPU).
sources::Query podCreatedOrGoneQuery(const config::PrometheusSource& settings,
                                     config::Seconds window);

/// staleness_markers_seen, where the setting is off: how many pods' kube_pod_created series
/// ended with a staleness marker in the last 290 s. A series with a sample that recent answers an
/// instant selection (Prometheus' lookback delta is 300 s) unless a marker ended it, so any answer
/// above 0 shows markers, and a backfill (none) always answers 0; so does a TSDB with markers where
/// no pod was deleted in that time. One selection of kube_pod_created over 290 s and one at the
/// instant: at the reference size 1.2-1.7 s of Prometheus CPU, asked by the first full read only.
sources::Query stalenessMarkersSeenQuery(const config::PrometheusSource& settings);

/// The parts of pod_spec: the catalog's query asks them all. An incremental read asks what never
/// changes once a pod exists (tolerations, node selector) of the pods its uid-list selector names
/// (kOfPods: not joined on the pods pending unbound; the builder keeps them only for those), and
/// a family's count (kTolerationsExported, kNodeSelectorsExported) only when no pod's series
/// already showed it exported: the count selects every series of the family.
enum class PodSpecParts { kAll, kOfPods, kTolerationsExported, kNodeSelectorsExported };
sources::Query podSpecQuery(const config::PrometheusSource& settings, PodSpecParts parts);

/// pod_annotations of the pods `settings`' selector names (a uid list): each pod's series
/// selected once and aggregated to `annotations`' keys, where the catalog's query selects the
/// series of each key apart (one selection per key: cheap for a key few pods have, dear for a
/// list of pods). The builder reads the same annotations from either.
sources::Query podAnnotationsOfPodsQuery(const config::PrometheusSource& settings, PodFactKey key,
                                         const AnnotationKeys& annotations);

/// `label=~"a|b|…"`, the regex's special characters escaped for PromQL's double-quoted string:
/// a selector of the listed pods (by uid, or by name within a namespace).
std::string matcherAnyOf(std::string_view label, std::span<const std::string_view> values);

/// `settings` with `extra` matchers appended to its selector.
config::PrometheusSource withSelector(config::PrometheusSource settings, const std::string& extra);

/// Not in the catalog: what the pods `settings`' selector names received over their network
/// interfaces within the lookback, one series per pod (namespace, pod): the counter's newest
/// value (kTotal; it only grows while the pod lives) or its mean over the pod's samples (kMean).
/// Summed over interfaces but the loopback, after a `max` over the series of one interface
/// (HA replicas, and cAdvisor's pod-level series under several container labels).
enum class ReceiveFigure { kTotal, kMean };
sources::Query podNetworkReceiveQuery(const config::PrometheusSource& settings,
                                      ReceiveFigure figure, std::string name);

}  // namespace dagadvisor::ingestion
