#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "config/config.h"
#include "ingestion/cluster_builder.h"
#include "ingestion/cluster_fetch.h"
#include "ingestion/incremental_state.h"
#include "ingestion/query_catalog.h"
#include "model/cluster.h"
#include "sources/metrics_source.h"

namespace dagadvisor::ingestion {

/// Reads that cost Prometheus what changed, not what exists (issue #18). The first read, a read
/// at least `incremental.resync` after the last full one, a read after a failed one and a read
/// not later than the previous one are full reads: the catalog's 21 queries, pod_phase as an
/// instant selection (podPhaseNowQuery), then, by uid, pod_seen over the lookback
/// (podNewestSampleQuery) of the pods not live and the catalog's pod_phase of those and of the
/// pods the instant one did not answer for; with staleness markers the live pods' creation times
/// from pod_live, and pod_created of the pods not live, by uid. Every other read asks over a window
/// from the previous read's time minus `incremental.margin` to `at`:
///  - nodes and the scheduler: the catalog's queries (they have no lookback: read whole);
///  - which pods changed (podChangesQuery: created or finished in the window, and of the pods the
///    last read left unbound or Pending, by uid, bound or left Pending) and which are gone
///    (podGoneQuery: seen in the window, not live now), answering only those pods. With
///    staleness markers one query names both the gone pods and the new ones
///    (podCreatedOrGoneQuery), and pod_gone is asked by uid only of the new ones;
///  - of those pods (`uid=~"…"`, 500 uids a request) what can change: info, phase, times, over
///    the whole lookback; of the new ones among them what never changes once a pod exists
///    (requests, labels, annotations, owner, and of pod_spec the app containers' requests,
///    tolerations and node selectors); of the gone ones their newest sample (pod_seen), so that
///    they are dropped once it leaves the lookback, as the full read drops them;
///  - pod_usage only every `incremental.usage_refresh`, kept in between (a resync's full read
///    keeps it too until then).
/// Pods not named are kept as the last read left them, live unless a read found them gone.
/// The pod facts are asked by uid alone (PodFactKey::kUid) until an answer shows a family
/// without uid; from then on, and for that read again, by namespace, pod and uid.
/// Too many changed pods (over 2,000 and a quarter of those kept) make it a full read.
class IncrementalReader {
 public:
  /// `annotations`: the pod annotations asked (AnnotationKeys), every one by default.
  explicit IncrementalReader(const config::PrometheusSource& settings,
                             AnnotationKeys annotations = std::nullopt);

  Result<model::ClusterSnapshot> read(sources::MetricsSource& source, UnixSeconds at,
                                      FetchStats& stats);

  /// Forgets what was kept: the next read is a full one.
  void reset() { state_ = IncrementalState(); }

 private:
  struct Limits {
    std::size_t concurrency;
    std::size_t max_series;
  };

  bool needsFullRead(UnixSeconds at) const;
  void planMarkersCheck(std::vector<PlannedQuery>& plan);
  bool usageDue(UnixSeconds at) const;
  /// When the usage the read's snapshot carries was read: `at` when due (the read asked it),
  /// else the kept usage's time, and the kept usage goes into `builder`.
  UnixSeconds keepOrReadUsage(ClusterBuilder& builder, UnixSeconds at, bool usage_due) const;
  Result<model::ClusterSnapshot> fullRead(sources::MetricsSource& source, UnixSeconds at,
                                          FetchStats& stats);
  /// How `source` reads a range's start (probeRangeStart), for the reads until the next full one.
  RangeStart rangeStartOf(sources::MetricsSource& source, UnixSeconds at, FetchStats& stats) const;
  Result<model::ClusterSnapshot> windowRead(sources::MetricsSource& source, UnixSeconds at,
                                            FetchStats& stats);
  /// pod_seen of the pods not live (`uids`), their samples into `newest`.
  std::vector<PlannedQuery> newestSamplePlan(const std::vector<std::string_view>& uids,
                                             IncrementalState::NewestSamples& newest) const;
  /// pod_changed over `window`: creation and completion of every pod, binding and leaving
  /// Pending of the pods the last read left unsettled, by uid (IncrementalState::unsettled).
  std::vector<sources::Query> changesQueries(config::Seconds window) const;
  /// The catalog's pod_phase over the lookback of the pods `uids`, by uid, into `builder`.
  std::vector<PlannedQuery> phaseOverLookbackPlan(const std::vector<std::string_view>& uids,
                                                  ClusterBuilder& builder) const;
  /// The catalog's pod_owner of the pods `uids` (whose kube_pod_info named no owner), by uid.
  std::vector<PlannedQuery> ownerPlan(const std::vector<std::string_view>& uids,
                                      ClusterBuilder& builder) const;
  /// The catalog's pod_created of the pods `uids` (those not live), by uid, into `builder`.
  std::vector<PlannedQuery> createdPlan(const std::vector<std::string_view>& uids,
                                        ClusterBuilder& builder) const;
  /// pod_spec of the pods `builder` has pending unbound, by uid, into `builder`. True when it
  /// asks the families' counts too (a pod without uid: the catalog's whole query).
  bool planSpecOfPending(ClusterBuilder& builder, std::vector<PlannedQuery>& plan) const;
  /// The counts of the spec families no series in `builder` showed exported.
  std::vector<PlannedQuery> specFamilyCountPlan(ClusterBuilder& builder) const;
  Result<void> run(sources::MetricsSource& source, const std::vector<PlannedQuery>& plan,
                   UnixSeconds at, FetchStats& stats) const;

  config::PrometheusSource settings_;
  // By uid until an answer shows a pod family without it (QueryCatalog's PodFactKey).
  PodFactKey fact_key_ = PodFactKey::kUid;
  bool markers_asked_ = false;  // stalenessMarkersSeenQuery asked (once, with the setting off)
  bool markers_seen_ = false;   // and it showed markers
  AnnotationKeys annotations_;
  QueryCatalog catalog_;
  Limits limits_;
  IncrementalState state_;
  // Only memory, nothing read: what the next read's builder reuses (ClusterBuilder::PodMemory).
  ClusterBuilder::PodMemory pod_memory_;
};

}  // namespace dagadvisor::ingestion
