#include "ingestion/incremental_reader.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/log.h"
#include "ingestion/cluster_builder.h"

namespace dagadvisor::ingestion {
namespace {

const log::Logger kLog("incremental");

// Beyond this many changed pods in one window (or a quarter of the pods kept, if more), a full
// read is cheaper than the uid lists.
constexpr std::size_t kMinTouchedForFullRead = 2000;
// Uids per query: keeps each request line well below servers' header limits (~37 bytes each).
constexpr std::size_t kUidsPerQuery = 500;
// Live pods whose tolerations and node selectors a full read asks besides the pending ones',
// to learn whether the families are exported without counting them (planSpecOfPending).
constexpr std::size_t kSpecProbePods = 100;

// What a reader with staleness_markers off says once it has seen markers (measured at the
// reference size, docs/performance.md, "Liveness from staleness markers").
constexpr const char* kMarkersHint =
    "Prometheus writes staleness markers: with sources.prometheus.staleness_markers: true a "
    "window read costs it about a third of the CPU it does now, a full read about three quarters";

// What a new pod's series say once, besides its annotations (podAnnotationsOfPodsQuery). Not
// kube_pod_owner: kube_pod_info names the controller (ownerPlan).
constexpr QueryId kOncePerPod[] = {QueryId::kPodRequests, QueryId::kPodLabels};

// What a pod's series can still say after it appeared: where it runs, its phase, its times.
constexpr QueryId kChangingFacts[] = {QueryId::kPodInfo,    QueryId::kPodPhase,
                                      QueryId::kPodCreated, QueryId::kPodScheduled,
                                      QueryId::kPodStarted, QueryId::kPodFinished};

// The queries about pods, which a window read asks only of the pods that changed.
bool isPodQuery(QueryId id) {
  return id != QueryId::kNodeAllocatable && id != QueryId::kNodeLabels &&
         id != QueryId::kNodeTaints && id != QueryId::kSchedulingLatency &&
         id != QueryId::kSchedulerSignals;
}

std::string uidMatcher(const std::vector<std::string_view>& uids, std::size_t from,
                       std::size_t to) {
  return matcherAnyOf("uid", std::span(uids).subspan(from, to - from));
}

PlannedQuery newestSampleQuery(const config::PrometheusSource& settings, double range_seconds,
                               IncrementalState::NewestSamples& newest) {
  return {podNewestSampleQuery(settings, config::Seconds(range_seconds)), false,
          [&newest](const sources::SampleView& sample) {
            newest.add(sample);
          }};
}

// The uid lists of `uids`, each a selector of at most kUidsPerQuery pods.
std::vector<config::PrometheusSource> uidSelectors(const config::PrometheusSource& settings,
                                                   const std::vector<std::string_view>& uids) {
  std::vector<config::PrometheusSource> out;
  for (std::size_t from = 0; from < uids.size(); from += kUidsPerQuery) {
    out.push_back(withSelector(
        settings, uidMatcher(uids, from, std::min(uids.size(), from + kUidsPerQuery))));
  }
  return out;
}

std::vector<std::string_view> uidsOf(const std::vector<const model::Pod*>& pods) {
  std::vector<std::string_view> uids;
  uids.reserve(pods.size());
  for (const model::Pod* pod : pods) {
    uids.push_back(pod->uid);
  }
  return uids;
}

// One query per uid list of `uids` (make(selector)), or one of every pod (make(settings)) when a
// pod has no uid: it cannot be listed.
template <typename Make>
std::vector<PlannedQuery> byUidPlan(const config::PrometheusSource& settings,
                                    const std::vector<std::string_view>& uids, Make make) {
  std::vector<PlannedQuery> plan;
  if (std::any_of(uids.begin(), uids.end(), [](std::string_view uid) { return uid.empty(); })) {
    plan.push_back(make(settings));
    return plan;
  }
  for (const config::PrometheusSource& selector : uidSelectors(settings, uids)) {
    plan.push_back(make(selector));
  }
  return plan;
}

// pod_live of a full read where staleness markers make it the instant selection of
// kube_pod_created: its value is the live pod's creation time, the newest sample that the
// catalog's pod_created reads over the lookback, so it answers both.
PlannedQuery liveAndCreatedQuery(const QueryCatalog& catalog, ClusterBuilder& builder) {
  return {catalog.get(QueryId::kPodLive), QueryCatalog::isOptional(QueryId::kPodLive),
          [&builder](const sources::SampleView& sample) {
            builder.add(QueryId::kPodLive, sample);
            builder.add(QueryId::kPodCreated, sample);
          }};
}

}  // namespace

IncrementalReader::IncrementalReader(const config::PrometheusSource& settings,
                                     AnnotationKeys annotations)
    : settings_(settings),
      annotations_(std::move(annotations)),
      catalog_(settings, fact_key_, annotations_),
      limits_{static_cast<std::size_t>(settings.max_concurrent_queries),
              static_cast<std::size_t>(settings.max_series_per_query)} {}

Result<model::ClusterSnapshot> IncrementalReader::read(sources::MetricsSource& source,
                                                       UnixSeconds at, FetchStats& stats) {
  auto snapshot = needsFullRead(at) ? fullRead(source, at, stats) : windowRead(source, at, stats);
  if (!snapshot.ok()) {
    reset();  // whatever the read got this far is not kept; the next one starts over
  } else if (markers_seen_) {
    stats.warnings.emplace_back(kMarkersHint);
  }
  return snapshot;
}

// With staleness_markers off, the first full read asks whether the TSDB writes them anyway
// (stalenessMarkersSeenQuery): then every read says so, until the setting is turned on.
void IncrementalReader::planMarkersCheck(std::vector<PlannedQuery>& plan) {
  if (settings_.staleness_markers || markers_asked_) {
    return;
  }
  markers_asked_ = true;
  plan.push_back(
      {stalenessMarkersSeenQuery(settings_), true, [this](const sources::SampleView& sample) {
         if (sample.value > 0 && !markers_seen_) {
           markers_seen_ = true;
           kLog.warn(kMarkersHint);
         }
       }});
}

// A first read, one after a failure and one back in time read usage; otherwise it is read again
// every usage_refresh: the three usage queries are a third of a full read's cost to Prometheus.
bool IncrementalReader::usageDue(UnixSeconds at) const {
  return state_.empty() || at <= state_.readAt() ||
         at - state_.usageReadAt() >= settings_.incremental.usage_refresh.count();
}

UnixSeconds IncrementalReader::keepOrReadUsage(ClusterBuilder& builder, UnixSeconds at,
                                               bool usage_due) const {
  if (usage_due) {
    return at;
  }
  builder.keepUsage(state_.usage());
  return state_.usageReadAt();
}

bool IncrementalReader::needsFullRead(UnixSeconds at) const {
  if (state_.empty() || at <= state_.readAt()) {
    return true;
  }
  const double window = at - state_.readAt() + settings_.incremental.margin.count();
  return window >= settings_.lookback.count() ||
         at - state_.fullReadAt() >= settings_.incremental.resync.count();
}

Result<void> IncrementalReader::run(sources::MetricsSource& source,
                                    const std::vector<PlannedQuery>& plan, UnixSeconds at,
                                    FetchStats& stats) const {
  if (plan.empty()) {
    return Result<void>();
  }
  return runQueries(source, plan, at, stats, limits_.concurrency, limits_.max_series);
}

Result<model::ClusterSnapshot> IncrementalReader::fullRead(sources::MetricsSource& source,
                                                           UnixSeconds at, FetchStats& stats) {
  // A resync keeps the usage read less than usage_refresh ago, as a window read does.
  const bool usage_due = usageDue(at);
  ClusterBuilder builder(at, std::move(pod_memory_));
  std::vector<PlannedQuery> plan;
  for (std::size_t i = 0; i < kQueryCount; ++i) {
    const auto id = static_cast<QueryId>(i);
    // pod_spec is asked once the answers tell which pods are pending unbound; the phases over the
    // lookback once the instant phases tell which pods need them (phaseOverLookbackPlan).
    // With staleness markers pod_live tells the live pods' creation times (createdPlan).
    // kube_pod_owner only of the pods kube_pod_info did not name an owner of (ownerPlan).
    const bool asked_later = id == QueryId::kPodSpec || id == QueryId::kPodPhase ||
                             id == QueryId::kPodOwner ||
                             (id == QueryId::kPodCreated && settings_.staleness_markers);
    if ((!isPodUsage(id) || usage_due) && !asked_later) {
      plan.push_back(id == QueryId::kPodLive && settings_.staleness_markers
                         ? liveAndCreatedQuery(catalog_, builder)
                         : catalogQuery(catalog_, id, builder));
    }
  }
  plan.push_back(builderQuery(podPhaseNowQuery(settings_, fact_key_), QueryId::kPodPhase, builder));
  planMarkersCheck(plan);
  IncrementalState::NewestSamples newest;
  if (auto answered = run(source, plan, at, stats); !answered.ok()) {
    return answered.error();
  }
  if (builder.answeredWithoutUid() && fact_key_ == PodFactKey::kUid) {
    kLog.info("pod series without uid: pods told apart by namespace and name from now on");
    fact_key_ = PodFactKey::kNamespacePodUid;
    catalog_ = QueryCatalog(settings_, fact_key_, annotations_);
    return fullRead(source, at, stats);
  }
  IncrementalState::PodSet gone;
  std::vector<std::string_view> gone_uids;
  for (const model::Pod* pod : builder.podsNotLive()) {
    gone.add(*pod);
    gone_uids.push_back(pod->uid);
  }
  std::vector<PlannedQuery> follow_up = newestSamplePlan(gone_uids, newest);
  for (PlannedQuery& query :
       phaseOverLookbackPlan(uidsOf(builder.podsNotLiveOrOfUnknownPhase()), builder)) {
    follow_up.push_back(std::move(query));
  }
  if (settings_.staleness_markers) {
    for (PlannedQuery& query : createdPlan(gone_uids, builder)) {
      follow_up.push_back(std::move(query));
    }
  }
  for (PlannedQuery& query : ownerPlan(uidsOf(builder.podsOfUnnamedOwner()), builder)) {
    follow_up.push_back(std::move(query));
  }
  const bool counted = planSpecOfPending(builder, follow_up);
  if (auto answered = run(source, follow_up, at, stats); !answered.ok()) {
    return answered.error();
  }
  if (!counted) {
    if (auto answered = run(source, specFamilyCountPlan(builder), at, stats); !answered.ok()) {
      return answered.error();
    }
  }
  const UnixSeconds usage_read_at = keepOrReadUsage(builder, at, usage_due);
  std::shared_ptr<const UsageTable> usage = builder.usage();
  const RangeStart range_start = rangeStartOf(source, at, stats);
  auto snapshot = finishSnapshot(std::move(builder).build(&pod_memory_), catalog_);
  if (snapshot.ok()) {
    // From scratch: nothing an earlier read concluded outlives a full one, but the usage kept.
    state_ = IncrementalState().after(
        {at, true, usage_read_at, at - settings_.lookback.count(), range_start}, *snapshot, newest,
        gone, std::move(usage));
  }
  return snapshot;
}

// Asked at every full read (a backend may be upgraded under a running daemon); a backend that
// does not answer keeps what was known, closed ranges at first (Prometheus 2, and a recording).
RangeStart IncrementalReader::rangeStartOf(sources::MetricsSource& source, UnixSeconds at,
                                           FetchStats& stats) const {
  const std::optional<RangeStart> probed = probeRangeStart(source, at, stats);
  const RangeStart range_start = probed.value_or(state_.rangeStart());
  if (range_start != state_.rangeStart()) {
    kLog.info("the backend's ranges hold their start",
              {{"holds", range_start == RangeStart::kClosed ? "true" : "false"}});
  }
  return range_start;
}

// Only a pod that is not live needs its newest sample (IncrementalState::after takes a live
// one's as the read's time), so only those are asked, by uid: the subquery over the lookback
// that pod_seen is costs Prometheus per series, and most pods of a lookback are usually live
// (a tenth of the reference: 530 of 11,176 not, 1.9 s of evaluation whole, 0.07 s a list). A
// pod without uid cannot be listed: then every pod is asked, as one query.
std::vector<PlannedQuery> IncrementalReader::newestSamplePlan(
    const std::vector<std::string_view>& uids, IncrementalState::NewestSamples& newest) const {
  const double lookback = settings_.lookback.count();
  return byUidPlan(settings_, uids, [&](const config::PrometheusSource& selector) {
    return newestSampleQuery(selector, lookback, newest);
  });
}

// pod_changed: what was created or finished in the window, of every pod; what was bound or left
// Pending, only of the pods the last read left unbound or Pending, by uid (query_catalog.h). A
// kept pod without uid cannot be listed: then both are asked of every pod, as one query. With
// staleness markers pod_created_or_gone names the pods created (windowRead).
std::vector<sources::Query> IncrementalReader::changesQueries(config::Seconds window) const {
  std::vector<std::string_view> uids;
  for (const model::Pod* pod : state_.unsettled()) {
    if (pod->uid.empty()) {
      return {podChangesQuery(settings_, window, PodChangeParts::kAll)};
    }
    uids.push_back(pod->uid);
  }
  std::vector<sources::Query> out{podChangesQuery(
      settings_, window,
      settings_.staleness_markers ? PodChangeParts::kFinished : PodChangeParts::kNewOrFinished)};
  for (const config::PrometheusSource& selector : uidSelectors(settings_, uids)) {
    out.push_back(podChangesQuery(selector, window, PodChangeParts::kBoundOrLeftPending));
  }
  return out;
}

// A full read asks every pod's current phase as an instant selection (podPhaseNowQuery), which
// reads one sample a phase series; only the pods it did not answer for need the catalog's range
// over the lookback, which reads every sample of it (at the reference size 7.5 M samples,
// 2.7-3.7 s of evaluation, against 0.43 M and 1.7-2.0 s): the pods not live, and a live pod whose
// phase series stopped before its others (a TSDB without staleness markers, where a deleted
// pod's families can end a refresh apart). A pod without uid cannot be listed: then every pod is
// asked the range, as the catalog does.
std::vector<PlannedQuery> IncrementalReader::phaseOverLookbackPlan(
    const std::vector<std::string_view>& uids, ClusterBuilder& builder) const {
  return byUidPlan(settings_, uids, [&](const config::PrometheusSource& selector) {
    return catalogQuery(QueryCatalog(selector, fact_key_), QueryId::kPodPhase, builder);
  });
}

// With staleness markers a full read takes the live pods' creation times from pod_live
// (liveAndCreatedQuery) and asks the catalog's pod_created only of the pods not live, by uid: at
// the reference size 5,300 of 112,000 pods, where the whole query selected every pod's series
// (0.9 s of evaluation) and sent 17 MB.
std::vector<PlannedQuery> IncrementalReader::createdPlan(const std::vector<std::string_view>& uids,
                                                         ClusterBuilder& builder) const {
  return byUidPlan(settings_, uids, [&](const config::PrometheusSource& selector) {
    return catalogQuery(QueryCatalog(selector, fact_key_), QueryId::kPodCreated, builder);
  });
}

// kube_pod_info's created_by_* names a pod's controller, or says "<none>"; kube_pod_owner, from
// the same ownerReferences, is asked only of the pods whose info did not say (an exporter without
// those labels), by uid: the whole family was 1.1-1.7 s of Prometheus CPU a full read at the
// reference size, and named no owner kube_pod_info did not.
std::vector<PlannedQuery> IncrementalReader::ownerPlan(const std::vector<std::string_view>& uids,
                                                       ClusterBuilder& builder) const {
  return byUidPlan(settings_, uids, [&](const config::PrometheusSource& selector) {
    return catalogQuery(QueryCatalog(selector, fact_key_), QueryId::kPodOwner, builder);
  });
}

// The catalog's pod_spec joins every toleration and node-selector series on the pods pending
// unbound, then counts each family whole: at the reference size ~3.6 s of Prometheus CPU for
// the handful of series it answers. By uid, only the pending pods' series are selected. A few
// other live pods go with them (build() drops what they answer): a series of theirs shows the
// family exported, which a count tells only by selecting all of it (1.2 s at the reference size
// when no pod is pending). Every pod has tolerations where the API server's
// DefaultTolerationSeconds admission runs, as it does by default.
bool IncrementalReader::planSpecOfPending(ClusterBuilder& builder,
                                          std::vector<PlannedQuery>& plan) const {
  std::vector<std::string_view> uids;
  for (const model::Pod* pod : builder.podsPendingUnbound(kSpecProbePods)) {
    if (!pod->uid.empty()) {
      uids.push_back(pod->uid);
    } else if (pod->isPendingUnscheduled()) {  // cannot be listed
      plan.push_back(catalogQuery(catalog_, QueryId::kPodSpec, builder));
      return true;
    }
  }
  for (const config::PrometheusSource& selector : uidSelectors(settings_, uids)) {
    plan.push_back(
        builderQuery(podSpecQuery(selector, PodSpecParts::kOfPods), QueryId::kPodSpec, builder));
  }
  return false;
}

// A family is exported when any pod has a series of it; only when none of the pods asked has
// one does telling "not exported" from "none of these pods has any" take a count of the family
// (usually kube_pod_nodeselectors, which is opt-in and then absent: a count of nothing).
std::vector<PlannedQuery> IncrementalReader::specFamilyCountPlan(ClusterBuilder& builder) const {
  std::vector<PlannedQuery> plan;
  const model::ClusterSnapshot::SpecFamilies& known = builder.specFamilies();
  if (!known.tolerations) {
    plan.push_back(builderQuery(podSpecQuery(settings_, PodSpecParts::kTolerationsExported),
                                QueryId::kPodSpec, builder));
  }
  if (!known.node_selectors) {
    plan.push_back(builderQuery(podSpecQuery(settings_, PodSpecParts::kNodeSelectorsExported),
                                QueryId::kPodSpec, builder));
  }
  return plan;
}

namespace {

// The pods a window read reads again, as pod_changed and pod_gone name them.
struct Touched {
  struct Pod {
    std::string namespace_;
    std::string name;
    std::string uid;
  };
  std::vector<Pod> pods;
  IncrementalState::PodSet all;
  IncrementalState::PodSet gone;

  void add(const sources::SampleView& sample, bool is_gone) {
    add(sample.label("namespace"), sample.label("pod"), sample.label("uid"), is_gone);
  }

  void add(std::string_view ns, std::string_view name, std::string_view uid, bool is_gone) {
    if (name.empty()) {
      return;
    }
    const std::size_t before = all.size();
    all.add(ns, name, uid);
    if (all.size() > before) {
      pods.push_back({std::string(ns), std::string(name), std::string(uid)});
    }
    if (is_gone) {
      gone.add(ns, name, uid);
    }
  }
};

// pod_gone over `window` of the pods `settings`' selector names, into `touched`.
PlannedQuery goneQuery(const config::PrometheusSource& settings, config::Seconds window,
                       Touched& touched) {
  return {podGoneQuery(settings, window), false, [&touched](const sources::SampleView& sample) {
            touched.add(sample, true);
          }};
}

// pod_created_or_gone (staleness markers): a pod created before the window is gone, one created
// in it is new (into `touched`), its uid into `created_uids` for pod_gone to tell whether it is
// gone too.
PlannedQuery createdOrGoneQuery(const config::PrometheusSource& settings, config::Seconds window,
                                UnixSeconds window_start, Touched& touched,
                                std::vector<std::string>& created_uids) {
  return {podCreatedOrGoneQuery(settings, window), false,
          [window_start, &touched, &created_uids](const sources::SampleView& sample) {
            const bool created_in_window = sample.value > window_start;
            touched.add(sample, !created_in_window);
            if (created_in_window) {
              created_uids.emplace_back(sample.label("uid"));
            }
          }};
}

// pod_gone of the pods pod_created_or_gone found created in the window, by uid: which of them are
// gone already. Of every pod if one has no uid (the window read then turns into a full read).
std::vector<PlannedQuery> createdGonePlan(const config::PrometheusSource& settings,
                                          const std::vector<std::string>& created_uids,
                                          config::Seconds window, Touched& touched) {
  const std::vector<std::string_view> uids(created_uids.begin(), created_uids.end());
  return byUidPlan(settings, uids, [&](const config::PrometheusSource& selector) {
    return goneQuery(selector, window, touched);
  });
}

}  // namespace

Result<model::ClusterSnapshot> IncrementalReader::windowRead(sources::MetricsSource& source,
                                                             UnixSeconds at, FetchStats& stats) {
  // Whole seconds: PromQL durations, and a window a little longer is as correct.
  const config::Seconds window(
      std::ceil(at - state_.readAt() + settings_.incremental.margin.count()));
  const bool usage_due = usageDue(at);
  ClusterBuilder builder(at, std::move(pod_memory_));
  Touched touched;
  std::vector<PlannedQuery> plan;
  for (std::size_t i = 0; i < kQueryCount; ++i) {
    const auto id = static_cast<QueryId>(i);
    if (!isPodQuery(id) || (isPodUsage(id) && usage_due)) {
      plan.push_back(catalogQuery(catalog_, id, builder));
    }
  }
  for (const sources::Query& query : changesQueries(window)) {
    plan.push_back({query, false, [&touched](const sources::SampleView& sample) {
                      touched.add(sample, false);
                    }});
  }
  const UnixSeconds window_start = at - window.count();
  std::vector<std::string> created_uids;
  if (settings_.staleness_markers) {
    plan.push_back(createdOrGoneQuery(settings_, window, window_start, touched, created_uids));
  } else {
    plan.push_back(goneQuery(settings_, window, touched));
  }
  if (auto answered = run(source, plan, at, stats); !answered.ok()) {
    return answered.error();
  }
  if (auto answered =
          run(source, createdGonePlan(settings_, created_uids, window, touched), at, stats);
      !answered.ok()) {
    return answered.error();
  }

  // Found gone by an earlier window, yet not by this one, which still sees their samples: live.
  std::size_t revived = 0;
  for (const model::Pod* pod : state_.goneWithin(window_start)) {
    if (!touched.gone.contains(*pod)) {
      touched.add(pod->namespace_, pod->name, pod->uid, false);
      ++revived;
    }
  }
  const std::size_t most = std::max(kMinTouchedForFullRead, state_.size() / 4);
  const bool without_uid = std::any_of(touched.pods.begin(), touched.pods.end(),
                                       [](const Touched::Pod& pod) { return pod.uid.empty(); });
  if (without_uid || touched.pods.size() > most) {
    kLog.info("full read instead of a window",
              {{"changed_pods", std::to_string(touched.pods.size())},
               {"reason", without_uid ? "a changed pod without uid" : "too many changed pods"}});
    return fullRead(source, at, stats);
  }
  std::vector<std::string_view> all_uids;
  std::vector<std::string_view> new_uids;
  std::vector<std::string_view> gone_uids;
  for (const Touched::Pod& pod : touched.pods) {
    all_uids.push_back(pod.uid);
    if (!state_.knows(pod.namespace_, pod.name, pod.uid)) {
      new_uids.push_back(pod.uid);
    }
    if (touched.gone.contains(pod.namespace_, pod.name, pod.uid)) {
      gone_uids.push_back(pod.uid);
    }
  }
  IncrementalState::NewestSamples newest;
  const std::vector<config::PrometheusSource> changed_selectors = uidSelectors(settings_, all_uids);
  const std::vector<config::PrometheusSource> new_selectors = uidSelectors(settings_, new_uids);
  const std::vector<config::PrometheusSource> gone_selectors = uidSelectors(settings_, gone_uids);
  std::vector<QueryCatalog> catalogs;
  catalogs.reserve(changed_selectors.size() + new_selectors.size());
  std::vector<PlannedQuery> per_pod;
  for (const config::PrometheusSource& selector : changed_selectors) {
    const QueryCatalog& catalog = catalogs.emplace_back(selector, fact_key_);
    for (QueryId id : kChangingFacts) {
      per_pod.push_back(catalogQuery(catalog, id, builder));
    }
  }
  for (const config::PrometheusSource& selector : new_selectors) {
    const QueryCatalog& catalog = catalogs.emplace_back(selector, fact_key_);
    for (QueryId id : kOncePerPod) {
      per_pod.push_back(catalogQuery(catalog, id, builder));
    }
    per_pod.push_back(builderQuery(podAnnotationsOfPodsQuery(selector, fact_key_, annotations_),
                                   QueryId::kPodAnnotations, builder));
    per_pod.push_back(
        builderQuery(podSpecQuery(selector, PodSpecParts::kOfPods), QueryId::kPodSpec, builder));
  }
  for (const config::PrometheusSource& selector : gone_selectors) {
    per_pod.push_back(newestSampleQuery(selector, window.count(), newest));
  }
  if (auto answered = run(source, per_pod, at, stats); !answered.ok()) {
    return answered.error();
  }
  std::vector<const model::Pod*> new_of_unnamed_owner;
  for (const model::Pod* pod : builder.podsOfUnnamedOwner()) {
    if (!state_.knows(pod->namespace_, pod->name, pod->uid)) {  // a kept pod keeps its owner
      new_of_unnamed_owner.push_back(pod);
    }
  }
  if (auto answered = run(source, ownerPlan(uidsOf(new_of_unnamed_owner), builder), at, stats);
      !answered.ok()) {
    return answered.error();
  }

  state_.moveInto(builder, at, settings_.lookback.count());
  builder.markLiveExcept(touched.gone.keys());
  builder.keepSpecFamilies(state_.specFamilies());
  const UnixSeconds usage_read_at = keepOrReadUsage(builder, at, usage_due);
  std::shared_ptr<const UsageTable> usage = builder.usage();
  auto snapshot = finishSnapshot(std::move(builder).build(&pod_memory_), catalog_);
  if (snapshot.ok()) {
    stats.window_read = true;
    kLog.debug("window read", {{"window_s", std::to_string(window.count())},
                               {"changed_pods", std::to_string(touched.pods.size())},
                               {"new_pods", std::to_string(new_uids.size())},
                               {"gone_pods", std::to_string(gone_uids.size())},
                               {"revived_pods", std::to_string(revived)},
                               {"usage_read", usage_due ? "true" : "false"}});
    state_ = state_.after({at, false, usage_read_at, window_start, state_.rangeStart()}, *snapshot,
                          newest, touched.gone, std::move(usage));
  }
  return snapshot;
}

}  // namespace dagadvisor::ingestion
