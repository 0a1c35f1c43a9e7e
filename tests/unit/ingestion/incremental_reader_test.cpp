#include "ingestion/incremental_reader.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <iterator>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "ingestion/query_catalog.h"

namespace dagadvisor::ingestion {
namespace {

constexpr const char* kEmpty = R"({"status":"success","data":{"resultType":"vector","result":[]}})";

std::string vector(const std::string& series) {
  return R"({"status":"success","data":{"resultType":"vector","result":[)" + series + "]}}";
}

// One node; `pods` pods with info, a newest sample at the read's time and one core of CPU
// usage; every other answer empty. Records what each read asked.
class ClusterSource final : public sources::MetricsSource {
 public:
  Result<sources::QueryBody> instantQuery(const sources::Query& query, UnixSeconds at) override {
    {
      std::lock_guard lock(mutex_);
      asked_.push_back(query);
    }
    if (query.name == "node_allocatable") {
      return sources::QueryBody{
          vector(R"({"metric":{"node":"n1","resource":"cpu"},"value":[1,"4"]})")};
    }
    if (query.name == "pod_spec") {
      return sources::QueryBody{vector(specSeries(query))};
    }
    const bool per_pod = query.name == "pod_info" || query.name == "pod_seen" ||
                         query.name == "pod_created" || query.name == "pod_live" ||
                         query.name == "pod_phase" || query.name == "pod_changed" ||
                         query.name == "pod_gone" || query.name == "pod_usage_cpu";
    if (query.name == "pod_created_or_gone") {
      return sources::QueryBody{vector(createdOrGoneSeries(at))};
    }
    if (!per_pod) {
      return sources::QueryBody{kEmpty};
    }
    std::string series;
    for (int i = 0; i < pods; ++i) {
      if (!answers(query, i)) {
        continue;
      }
      const std::string n = std::to_string(i);
      const bool unbound = i == pending;
      const bool names_owner = query.name == "pod_info" && info_names_owner && i != unnamed_owner;
      series += std::string(series.empty() ? "" : ",") + R"({"metric":{"namespace":"ns","pod":"p)" +
                n + R"(","uid":")" + uidOf(i) +
                (names_owner ? R"(","created_by_kind":"ReplicaSet","created_by_name":"rs)" : "") +
                R"(","node":")" + (unbound ? "" : "n1") + R"(","phase":")" +
                (unbound     ? "Pending"
                 : i == gone ? gone_phase
                             : "Running") +
                R"("},"value":[1,")" +
                (query.name == "pod_seen"   ? std::to_string(i == gone ? gone_seen : at - 30)
                 : query.name == "pod_live" ? std::to_string(1000 + i)  // kube_pod_created's value
                                            : "1") +
                R"("]})";
    }
    return sources::QueryBody{vector(series)};
  }
  std::string describe() const override { return "cluster"; }
  bool concurrent() const override { return true; }

  std::vector<sources::Query> take() {
    std::lock_guard lock(mutex_);
    return std::exchange(asked_, {});
  }

  int pods = 1;
  int pending = -1;                    // the pod pending unbound, if any
  bool pending_has_uid = true;         // whether kube-state-metrics gives it one
  bool pending_tolerates = true;       // whether it has a toleration series
  bool others_tolerate = false;        // whether the other pods have one
  int toleration_series = 3;           // what the family's count answers (0: not exported)
  int changed_from = 0;                // pod_changed names pods from this one on
  int gone = -1;                       // the pod pod_gone names, and pod_live leaves out
  UnixSeconds gone_seen = 10030;       // its newest sample
  std::string gone_phase = "Running";  // its phase then
  int stale_phase = -1;                // a live pod whose phase series the instant selection misses
  int created_from = 1 << 30;          // pods from this one on were created 30 s before a read
  bool info_names_owner = false;       // kube_pod_info has created_by_* (kube-state-metrics')
  int unnamed_owner = -1;              // but not for this pod

 private:
  std::string uidOf(int i) const {
    return i == pending && !pending_has_uid ? "" : "u" + std::to_string(i);
  }

  // pod_created_or_gone: the gone pod and those created 30 s ago, valued by their creation time
  // (the others were created at 1, long before any window).
  std::string createdOrGoneSeries(UnixSeconds at) const {
    std::string series;
    for (int i = 0; i < pods; ++i) {
      const bool created_recently = i >= created_from;
      if (i == gone || created_recently) {
        series += std::string(series.empty() ? "" : ",") +
                  R"({"metric":{"namespace":"ns","pod":"p)" + std::to_string(i) + R"(","uid":")" +
                  uidOf(i) + R"("},"value":[1,")" + std::to_string(created_recently ? at - 30 : 1) +
                  R"("]})";
      }
    }
    return series;
  }

  // pod_spec's parts, told apart by what their PromQL asks: the pending pod's toleration when
  // the query names it (uid list) or joins on the unbound pods (no list), and each count asked.
  std::string specSeries(const sources::Query& query) const {
    std::string series;
    auto add = [&](const std::string& s) {
      series += (series.empty() ? "" : ",") + s;
    };
    const bool lists_uids = query.promql.find("uid=~") != std::string::npos;
    const bool toleration = query.promql.find("\"toleration\"") != std::string::npos;
    for (int i = 0; i < pods && toleration && toleration_series > 0; ++i) {
      const bool asked = lists_uids ? answers(query, i) : i == pending;  // else: the join
      if (asked && (i == pending ? pending_tolerates : others_tolerate)) {
        add(R"({"metric":{"namespace":"ns","pod":"p)" + std::to_string(i) + R"(","uid":")" +
            uidOf(i) +
            R"(","spec":"toleration","key":"gpu","operator":"Exists","effect":"NoSchedule"},"value":[1,"1"]})");
      }
    }
    if (query.promql.find("tolerations_exported") != std::string::npos && toleration_series > 0) {
      add(R"({"metric":{"spec":"tolerations_exported"},"value":[1,")" +
          std::to_string(toleration_series) + R"("]})");
    }
    return series;  // node selectors: not exported (opt-in), so no count series
  }

  // What a real Prometheus would answer of pod `i`: per-uid queries only of the pods they name.
  bool answers(const sources::Query& query, int i) const {
    const std::string uid = "u" + std::to_string(i);
    const auto list = query.promql.find("uid=~\"");
    if (list != std::string::npos) {
      const std::string names = query.promql.substr(list, query.promql.find('"', list + 6) - list);
      if (names.find("\"" + uid + "|") == std::string::npos &&
          names.find("|" + uid + "|") == std::string::npos &&
          names.find("|" + uid) + uid.size() + 1 != names.size() && names != "uid=~\"" + uid) {
        return false;
      }
    }
    if (query.name == "pod_changed") {
      return i >= changed_from;
    }
    if (query.name == "pod_gone") {
      return i == gone;
    }
    // The instant phase selection (no range) sees only the series still written.
    const bool instant_phase =
        query.name == "pod_phase" && query.promql.find("last_over_time") == std::string::npos;
    if (instant_phase && i == stale_phase) {
      return false;
    }
    return (query.name != "pod_live" && !instant_phase) || i != gone;
  }

  std::mutex mutex_;
  std::vector<sources::Query> asked_;
};

std::size_t count(const std::vector<sources::Query>& asked, const std::string& name) {
  return static_cast<std::size_t>(std::count_if(
      asked.begin(), asked.end(), [&](const sources::Query& q) { return q.name == name; }));
}

// Settings whose reads after the first are windows for an hour.
config::PrometheusSource hourlyResync() {
  config::PrometheusSource settings;
  settings.incremental.resync = config::Seconds(3600);
  return settings;
}

// The same, where the TSDB writes staleness markers.
config::PrometheusSource hourlyResyncWithMarkers() {
  config::PrometheusSource settings = hourlyResync();
  settings.staleness_markers = true;
  return settings;
}

const QueryCost* costOf(const FetchStats& stats, const std::string& name) {
  const auto it = std::find_if(stats.costs.begin(), stats.costs.end(),
                               [&](const QueryCost& c) { return c.query == name; });
  return it == stats.costs.end() ? nullptr : &*it;
}

TEST_CASE(
    "a window read sums each query's chunks into one cost, and asks container requests "
    "only of the new pods",
    "[ingestion][incremental]") {
  config::PrometheusSource settings;
  settings.incremental.resync = config::Seconds(3600);
  const std::string container_metric = settings.metrics.pod_requests;
  IncrementalReader reader(settings);
  ClusterSource source;

  FetchStats full;
  REQUIRE(reader.read(source, 10000, full).ok());
  std::vector<sources::Query> asked = source.take();
  CHECK_FALSE(full.window_read);
  // The catalog but pod_spec, asked after: no pod pending unbound, and the live pod asked has no
  // toleration, so the two families' counts too. Every pod is live: no pod_seen. The setting
  // staleness_markers is off: whether the TSDB writes them anyway (it answers nothing here). How
  // the backend reads a range's start (range_start: an empty answer, closed ranges kept).
  CHECK(asked.size() == kQueryCount + 4);
  CHECK(count(asked, "range_start") == 1);
  CHECK(full.costs.size() == kQueryCount + 2);
  CHECK(count(asked, "staleness_markers_seen") == 1);
  CHECK(full.warnings.empty());
  CHECK(count(asked, "pod_spec") == 3);
  CHECK(count(asked, "pod_seen") == 0);

  source.pods = 601;  // 600 new pods: two uid lists of 500 and 100
  FetchStats window;
  auto snapshot = reader.read(source, 10060, window);
  REQUIRE(snapshot.ok());
  CHECK(snapshot->pods().size() == 601);
  asked = source.take();
  REQUIRE(window.window_read);
  CHECK(window.queries == asked.size());
  CHECK(count(asked, "pod_usage_cpu") == 0);  // kept until usage_refresh
  CHECK(count(asked, "pod_live") == 0);       // pod_gone says which are not
  CHECK(count(asked, "pod_changed") == 1);
  CHECK(count(asked, "pod_gone") == 1);
  CHECK(count(asked, "pod_requests") == 2);
  CHECK(count(asked, "pod_spec") == 2);  // each list's container requests and tolerations
  CHECK(count(asked, "pod_info") == 2);  // 601 changed: lists of 500 and 101
  CHECK(count(asked, "pod_seen") == 0);  // no pod gone
  for (const sources::Query& query : asked) {
    const bool per_pod = query.promql.find("uid=~") != std::string::npos;
    const bool about_pods =
        query.name.rfind("pod_", 0) == 0 && query.name != "pod_changed" && query.name != "pod_gone";
    CHECK(per_pod == about_pods);  // what pods say: only of the pods that changed
  }
  // One cost per name, whatever the requests; its bytes are theirs summed.
  for (const QueryCost& cost : window.costs) {
    CHECK(std::count_if(window.costs.begin(), window.costs.end(),
                        [&](const QueryCost& c) { return c.query == cost.query; }) == 1);
    CHECK(cost.requests == count(asked, cost.query));
  }
  const QueryCost* requests = costOf(window, "pod_requests");
  REQUIRE(requests != nullptr);
  CHECK(requests->requests == 2);
  CHECK(requests->bytes == 2 * std::string(kEmpty).size());
  CHECK(costOf(window, "pod_usage_cpu") == nullptr);
}

TEST_CASE(
    "a window read reads again only the pods that changed, keeps the others live, and takes "
    "a gone pod for deleted",
    "[ingestion][incremental]") {
  IncrementalReader reader(hourlyResync());
  ClusterSource source;
  source.pods = 3;
  FetchStats full;
  auto first = reader.read(source, 10000, full);
  REQUIRE(first.ok());
  REQUIRE(first->pods().size() == 3);
  for (const model::Pod& pod : first->pods()) {
    CHECK(pod.phase == model::PodPhase::kRunning);
  }
  source.take();

  source.changed_from = 3;  // nothing changed
  source.gone = 2;          // but p2 was deleted
  FetchStats window;
  auto second = reader.read(source, 10060, window);
  REQUIRE(second.ok());
  REQUIRE(window.window_read);
  const std::vector<sources::Query> asked = source.take();
  CHECK(count(asked, "pod_info") == 1);      // only p2's
  CHECK(count(asked, "pod_seen") == 1);      // when p2's info was last seen
  CHECK(count(asked, "pod_requests") == 0);  // no pod is new
  REQUIRE(second->pods().size() == 3);
  CHECK(second->pods()[0].phase == model::PodPhase::kRunning);  // kept, still live
  CHECK(second->pods()[1].phase == model::PodPhase::kRunning);
  CHECK(second->pods()[2].phase == model::PodPhase::kUnknown);  // deleted while running
  // The first snapshot, still held, shared its pods with the reader: they were copied for the
  // second read, not moved out from under it.
  REQUIRE(first->pods().size() == 3);
  CHECK(first->pods()[2].phase == model::PodPhase::kRunning);
  CHECK(first->pods()[2].uid == "u2");

  // A scrape of kube-state-metrics had failed: the next window sees p2 live again (pod_gone no
  // longer names it while its newest sample is in the window) and reads it again.
  source.gone = -1;
  auto read = [&](UnixSeconds at) {
    FetchStats stats;
    auto snapshot = reader.read(source, at, stats);
    REQUIRE(snapshot.ok());
    REQUIRE(stats.window_read);
    REQUIRE(snapshot->pods().size() == 3);
    CHECK(snapshot->pods()[0].phase == model::PodPhase::kRunning);  // never named: kept live
    return snapshot->pods()[2].phase;
  };
  CHECK(read(10120) == model::PodPhase::kRunning);
  CHECK(count(source.take(), "pod_info") == 1);
  // Deleted now: gone in every window that still sees its newest sample (10,030), and after.
  source.gone = 2;
  CHECK(read(10180) == model::PodPhase::kUnknown);
  CHECK(read(10400) == model::PodPhase::kUnknown);
  source.gone = -1;  // its samples have left the window: nothing names it any more
  source.take();
  CHECK(read(10460) == model::PodPhase::kUnknown);
  CHECK(count(source.take(), "pod_info") == 0);
}

TEST_CASE(
    "a full read asks the newest sample only of the pods not live, by uid, and a window drops "
    "such a pod when that sample leaves the lookback, as a full read would",
    "[ingestion][incremental]") {
  config::PrometheusSource settings;
  settings.incremental.resync = config::Seconds(3600);
  settings.lookback = config::Seconds(600);
  IncrementalReader reader(settings);
  ClusterSource source;
  source.pods = 3;
  source.gone = 2;  // deleted: pod_live leaves it out; its newest sample is at 10,030
  source.changed_from = 3;
  FetchStats full;
  auto first = reader.read(source, 10060, full);
  REQUIRE(first.ok());
  CHECK_FALSE(full.window_read);
  REQUIRE(first->pods().size() == 3);
  const std::vector<sources::Query> asked = source.take();
  REQUIRE(count(asked, "pod_seen") == 1);
  for (const sources::Query& query : asked) {
    if (query.name == "pod_seen") {
      CHECK(query.promql.find(R"(uid=~"u2")") != std::string::npos);
    }
  }
  // 10,030 + 600 s of lookback: the pod is in every read until 10,630, and in none after. Once
  // its newest sample has left a window (420 s: 60 s since the last read and the margin),
  // pod_gone no longer names it, as Prometheus would not.
  for (UnixSeconds at = 10120; at <= 10660; at += 60) {
    source.gone = at - 420 <= 10030 ? 2 : -1;
    FetchStats stats;
    auto snapshot = reader.read(source, at, stats);
    REQUIRE(snapshot.ok());
    REQUIRE(stats.window_read);
    CHECK(snapshot->pods().size() == (at <= 10630 ? 3U : 2U));
  }
}

TEST_CASE(
    "a full read asks every pod's phase at the instant, and over the lookback only of the pods "
    "not live, by uid",
    "[ingestion][incremental]") {
  IncrementalReader reader(hourlyResync());
  ClusterSource source;
  source.pods = 3;
  source.gone = 2;  // finished and deleted: its phase series are no longer written
  source.gone_phase = "Succeeded";
  FetchStats full;
  auto snapshot = reader.read(source, 10060, full);
  REQUIRE(snapshot.ok());
  std::vector<std::string> phase_queries;
  for (const sources::Query& query : source.take()) {
    if (query.name == "pod_phase") {
      phase_queries.push_back(query.promql);
    }
  }
  REQUIRE(phase_queries.size() == 2);
  if (phase_queries[0].find("uid=~") != std::string::npos) {
    std::swap(phase_queries[0], phase_queries[1]);  // the instant one first
  }
  CHECK(phase_queries[0].find("last_over_time") == std::string::npos);
  CHECK(phase_queries[0].find("uid=~") == std::string::npos);
  CHECK(phase_queries[1].find("last_over_time") != std::string::npos);
  CHECK(phase_queries[1].find(R"(uid=~"u2")") != std::string::npos);
  CHECK(phase_queries[1].find("u0") == std::string::npos);
  REQUIRE(snapshot->pods().size() == 3);
  CHECK(snapshot->pods()[0].phase == model::PodPhase::kRunning);
  CHECK(snapshot->pods()[2].phase == model::PodPhase::kSucceeded);  // from the range alone
  const QueryCost* phase = costOf(full, "pod_phase");               // one cost for both
  REQUIRE(phase != nullptr);
  CHECK(phase->requests == 2);
}

// Without staleness markers a deleted pod's families can end a refresh apart: live by its
// kube_pod_info, its phase series too old for an instant selection.
TEST_CASE("a full read asks the phase over the lookback of a live pod the instant one misses",
          "[ingestion][incremental]") {
  IncrementalReader reader(hourlyResync());
  ClusterSource source;
  source.pods = 3;
  source.stale_phase = 1;
  FetchStats full;
  auto snapshot = reader.read(source, 10060, full);
  REQUIRE(snapshot.ok());
  std::vector<std::string> listed;
  for (const sources::Query& query : source.take()) {
    if (query.name == "pod_phase" && query.promql.find("uid=~") != std::string::npos) {
      listed.push_back(query.promql);
    }
  }
  REQUIRE(listed.size() == 1);
  CHECK(listed[0].find(R"(uid=~"u1")") != std::string::npos);
  REQUIRE(snapshot->pods().size() == 3);
  CHECK(snapshot->pods()[1].phase == model::PodPhase::kRunning);
}

TEST_CASE("a resync's full read keeps the usage read less than usage_refresh ago",
          "[ingestion][incremental]") {
  config::PrometheusSource settings;
  settings.incremental.resync = config::Seconds(300);
  settings.incremental.usage_refresh = config::Seconds(900);
  IncrementalReader reader(settings);
  ClusterSource source;
  auto read = [&](UnixSeconds at, bool window, bool usage_asked) {
    FetchStats stats;
    auto snapshot = reader.read(source, at, stats);
    REQUIRE(snapshot.ok());
    CHECK(stats.window_read == window);
    CHECK(count(source.take(), "pod_usage_cpu") == (usage_asked ? 1U : 0U));
    REQUIRE(snapshot->pods().size() == 1);
    REQUIRE(snapshot->pods()[0].usage.has_value());
    CHECK(snapshot->pods()[0].usage->cpu_cores == 1);
  };
  read(10000, false, true);   // the first read: everything
  read(10060, true, false);   // a window: usage kept
  read(10310, false, false);  // a resync (310 s after the full read): the usage is 310 s old
  read(10370, true, false);
  read(10620, false, false);  // the next resync keeps it too: 620 s old
  read(10930, false, true);   // 930 s: this resync reads it again
  read(10990, true, false);
}

const model::Pod* podNamed(const model::ClusterSnapshot& snapshot, const std::string& name) {
  for (const model::Pod& pod : snapshot.pods()) {
    if (pod.name == name) {
      return &pod;
    }
  }
  return nullptr;
}

std::vector<sources::Query> askedNamed(const std::vector<sources::Query>& asked,
                                       const std::string& name) {
  std::vector<sources::Query> out;
  std::copy_if(asked.begin(), asked.end(), std::back_inserter(out),
               [&](const sources::Query& q) { return q.name == name; });
  return out;
}

bool mentions(const sources::Query& query, const std::string& text) {
  return query.promql.find(text) != std::string::npos;
}

// The first read of `source` (a full one) with a reader of its own, and the pod_spec queries
// it asked.
struct FirstRead {
  model::ClusterSnapshot snapshot;
  std::vector<sources::Query> spec;
};

FirstRead firstRead(ClusterSource& source) {
  IncrementalReader reader(hourlyResync());
  FetchStats stats;
  auto snapshot = reader.read(source, 10000, stats);
  REQUIRE(snapshot.ok());
  return {std::move(*snapshot), askedNamed(source.take(), "pod_spec")};
}

TEST_CASE(
    "a full read asks the tolerations of the pods pending unbound by uid, and counts a family "
    "only when no series showed it exported",
    "[ingestion][incremental]") {
  ClusterSource source;
  source.pods = 3;
  source.pending = 1;

  SECTION("the pending pod's toleration shows its family exported: only node selectors counted") {
    const auto [snapshot, spec] = firstRead(source);
    REQUIRE(spec.size() == 2);
    CHECK(mentions(spec[0], "uid=~\"u1|u0|u2\""));  // by uid (the pending pod first), no join
    CHECK_FALSE(mentions(spec[0], "node=\"\""));
    CHECK(mentions(spec[1], "node_selectors_exported"));
    CHECK_FALSE(mentions(spec[1], "tolerations_exported"));
    CHECK(snapshot.specFamilies().tolerations);
    CHECK_FALSE(snapshot.specFamilies().node_selectors);
    const model::Pod* pending = podNamed(snapshot, "p1");
    REQUIRE(pending != nullptr);
    REQUIRE(pending->tolerations.has_value());
    REQUIRE(pending->tolerations->size() == 1);
    CHECK(pending->tolerations->front().key == "gpu");
    CHECK_FALSE(podNamed(snapshot, "p0")->tolerations.has_value());  // bound: not needed
  }
  SECTION("a pending pod without tolerations: the count tells none from not exported") {
    source.pending_tolerates = false;
    const auto [snapshot, spec] = firstRead(source);
    REQUIRE(spec.size() == 3);  // the uid list, then both counts
    CHECK(mentions(spec[1], "tolerations_exported"));
    CHECK(mentions(spec[2], "node_selectors_exported"));
    CHECK(snapshot.specFamilies().tolerations);
    const model::Pod* pending = podNamed(snapshot, "p1");
    REQUIRE(pending->tolerations.has_value());  // exported: it has none
    CHECK(pending->tolerations->empty());
  }
  SECTION("no pod pending: a live pod's toleration shows the family exported, without a count") {
    source.pending = -1;
    source.others_tolerate = true;
    const auto [snapshot, spec] = firstRead(source);
    REQUIRE(spec.size() == 2);
    CHECK(mentions(spec[0], "uid=~\"u0|u1|u2\""));
    CHECK(mentions(spec[1], "node_selectors_exported"));
    CHECK(snapshot.specFamilies().tolerations);
    for (const model::Pod& pod : snapshot.pods()) {
      CHECK_FALSE(pod.tolerations.has_value());  // asked only to learn the family: dropped
    }
  }
  SECTION("a family not exported stays unknown on the pending pod") {
    source.toleration_series = 0;
    const auto [snapshot, spec] = firstRead(source);
    CHECK(spec.size() == 3);
    CHECK_FALSE(snapshot.specFamilies().tolerations);
    CHECK_FALSE(podNamed(snapshot, "p1")->tolerations.has_value());
  }
  SECTION("a pending pod without uid cannot be listed: the catalog's whole query, counts in it") {
    source.pending_has_uid = false;
    const auto [snapshot, spec] = firstRead(source);
    REQUIRE(spec.size() == 1);
    CHECK(spec[0].promql == podSpecQuery(hourlyResync(), PodSpecParts::kAll).promql);
    CHECK(snapshot.specFamilies().tolerations);
    const model::Pod* pending = podNamed(snapshot, "p1");
    REQUIRE(pending->tolerations.has_value());
    CHECK(pending->tolerations->size() == 1);
  }
}

TEST_CASE("pod_spec's parts: the catalog's joins on the unbound pods, a uid list's does not",
          "[ingestion][incremental]") {
  const config::PrometheusSource settings;
  const std::string containers = settings.metrics.pod_requests + "{";
  const std::string tolerations = settings.metrics.pod_tolerations + "{";
  const std::string all = QueryCatalog(settings).get(QueryId::kPodSpec).promql;
  CHECK(all == podSpecQuery(settings, PodSpecParts::kAll).promql);
  CHECK(all.find(tolerations) != std::string::npos);
  // The containers' requests are pod_requests' alone: the largest pod family is read once.
  CHECK(all.find(containers) == std::string::npos);
  CHECK(QueryCatalog(settings).get(QueryId::kPodRequests).promql.find(containers) !=
        std::string::npos);
  // Of the pods a uid list names: everything that never changes, not joined on the unbound.
  const std::string of_pods = podSpecQuery(settings, PodSpecParts::kOfPods).promql;
  CHECK(of_pods.find(tolerations) != std::string::npos);
  CHECK(of_pods.find(R"(node="")") == std::string::npos);
  CHECK(all.find(R"(node="")") != std::string::npos);
}

TEST_CASE("a window's change queries select each family once and answer only changes",
          "[ingestion][incremental]") {
  const config::PrometheusSource settings;
  const std::string changed = podChangesQuery(settings, config::Seconds(420)).promql;
  for (const std::string& metric :
       {settings.metrics.pod_created, settings.metrics.pod_scheduled_time,
        settings.metrics.pod_completion_time}) {
    CHECK(changed.find("last_over_time(" + metric + "{}[7m]) > time() - 420") != std::string::npos);
  }
  // A start time comes with the binding, leaving Running with a completion time: not selected.
  CHECK(changed.find(settings.metrics.pod_start_time) == std::string::npos);
  CHECK(changed.find("changes(" + settings.metrics.pod_phase + R"({phase="Pending"}[7m]) > 0)") !=
        std::string::npos);
  const std::string gone = podGoneQuery(settings, config::Seconds(420)).promql;
  CHECK(gone.find("last_over_time(" + settings.metrics.pod_info + "{}[7m])") != std::string::npos);
  CHECK(gone.find(" unless on (namespace, pod, uid) ") != std::string::npos);
}

TEST_CASE("a window's change query in parts: new or finished of every pod, bound or left Pending",
          "[ingestion][incremental]") {
  const config::PrometheusSource settings;
  const auto& m = settings.metrics;
  const std::string new_or_finished =
      podChangesQuery(settings, config::Seconds(420), PodChangeParts::kNewOrFinished).promql;
  const std::string bound_or_left =
      podChangesQuery(settings, config::Seconds(420), PodChangeParts::kBoundOrLeftPending).promql;
  for (const std::string& metric : {m.pod_created, m.pod_completion_time}) {
    CHECK(new_or_finished.find(metric) != std::string::npos);
    CHECK(bound_or_left.find(metric) == std::string::npos);
  }
  for (const std::string& metric : {m.pod_scheduled_time, m.pod_phase}) {
    CHECK(new_or_finished.find(metric) == std::string::npos);
    CHECK(bound_or_left.find(metric) != std::string::npos);
  }
}

std::vector<std::string> changeQueries(const std::vector<sources::Query>& asked) {
  std::vector<std::string> out;
  for (const sources::Query& query : asked) {
    if (query.name == "pod_changed") {
      out.push_back(query.promql);
    }
  }
  std::sort(out.begin(), out.end(), [](const std::string& a, const std::string& b) {
    return (a.find("uid=~") == std::string::npos) > (b.find("uid=~") == std::string::npos);
  });
  return out;  // the query of every pod first
}

// A full read at 10,000, then a window read at 10,060 in which nothing changed: its pod_changed.
std::vector<std::string> changeQueriesOfWindow(IncrementalReader& reader, ClusterSource& source) {
  FetchStats full;
  REQUIRE(reader.read(source, 10000, full).ok());
  source.take();
  source.changed_from = source.pods;
  FetchStats window;
  REQUIRE(reader.read(source, 10060, window).ok());
  REQUIRE(window.window_read);
  return changeQueries(source.take());
}

TEST_CASE(
    "a window read asks which pods were bound or left Pending only of those the last read left "
    "unbound or Pending, by uid",
    "[ingestion][incremental]") {
  const config::PrometheusSource settings = hourlyResync();
  IncrementalReader reader(settings);
  ClusterSource source;
  source.pods = 3;
  source.pending = 1;  // p1: pending unbound at the full read
  const std::vector<std::string> asked = changeQueriesOfWindow(reader, source);
  REQUIRE(asked.size() == 2);
  CHECK(asked[0].find("uid=~") == std::string::npos);
  CHECK(asked[0].find(settings.metrics.pod_created) != std::string::npos);
  CHECK(asked[0].find(settings.metrics.pod_scheduled_time) == std::string::npos);
  CHECK(asked[1].find(R"(uid=~"u1")") != std::string::npos);
  CHECK(asked[1].find(settings.metrics.pod_scheduled_time) != std::string::npos);
  CHECK(asked[1].find(settings.metrics.pod_phase) != std::string::npos);

  // Bound and running now: no pod is left to settle, so the next window asks only the first part.
  FetchStats window;
  source.pending = -1;
  source.changed_from = 1;
  REQUIRE(reader.read(source, 10120, window).ok());
  source.take();
  source.changed_from = 3;
  REQUIRE(reader.read(source, 10180, window).ok());
  CHECK(changeQueries(source.take()).size() == 1);
}

TEST_CASE("a kept pod without uid makes the window's change query one of every pod",
          "[ingestion][incremental]") {
  const config::PrometheusSource settings = hourlyResync();
  IncrementalReader reader(settings);
  ClusterSource source;
  source.pods = 3;
  source.pending = 1;
  source.pending_has_uid = false;
  const std::vector<std::string> asked = changeQueriesOfWindow(reader, source);
  REQUIRE(asked.size() == 1);
  CHECK(asked[0].find("uid=~") == std::string::npos);
  CHECK(asked[0].find(settings.metrics.pod_created) != std::string::npos);
  CHECK(asked[0].find(settings.metrics.pod_scheduled_time) != std::string::npos);
}

TEST_CASE(
    "a window read keeps its pods as they were read, not with the specs the Kubernetes API's "
    "LIST joined onto the last snapshot",
    "[ingestion][incremental]") {
  IncrementalReader reader(hourlyResync());
  ClusterSource source;
  source.pods = 2;
  source.changed_from = 2;  // no pod changes
  {
    FetchStats full;
    auto first = reader.read(source, 10000, full);
    REQUIRE(first.ok());
    model::PendingPodSpec spec;
    spec.namespace_ = "ns";
    spec.name = "p0";
    spec.priority = 1000;
    spec.priority_class = "high";
    spec.required_node_affinity.emplace_back();
    model::SchedulingSpecs specs;
    specs.pending_pods.emplace({spec});
    first->joinSchedulingSpecs(std::move(specs));
    REQUIRE(first->pods()[0].priority_class == "high");
    REQUIRE(first->pods()[0].required_node_affinity);
  }  // the cycle is done with it: the reader takes its pods back
  FetchStats window;
  auto second = reader.read(source, 10060, window);
  REQUIRE(second.ok());
  REQUIRE(window.window_read);
  REQUIRE(second->pods().size() == 2);
  const model::Pod& kept = second->pods()[0];
  CHECK(kept.name == "p0");
  CHECK(kept.priority_class.empty());  // kube-state-metrics gave none
  CHECK_FALSE(kept.priority);
  CHECK_FALSE(kept.required_node_affinity);
  CHECK_FALSE(kept.priority_class_listed);
}

model::PodPhase phaseOf(const model::ClusterSnapshot& snapshot, const std::string& name) {
  for (const model::Pod& pod : snapshot.pods()) {
    if (pod.name == name) {
      return pod.phase;
    }
  }
  FAIL("no pod " << name);
  return model::PodPhase::kUnknown;
}

// The uid list of the one query named `name` in `asked`, as sent.
std::string uidListOf(const std::vector<sources::Query>& asked, const std::string& name) {
  REQUIRE(count(asked, name) == 1);
  for (const sources::Query& query : asked) {
    if (query.name == name) {
      const auto list = query.promql.find("uid=~\"");
      REQUIRE(list != std::string::npos);
      return query.promql.substr(list + 6, query.promql.find('"', list + 6) - list - 6);
    }
  }
  return "";
}

TEST_CASE(
    "with staleness markers one query names the gone pods and those created in the window, and "
    "pod_gone is asked only of the latter, by uid",
    "[ingestion][incremental]") {
  IncrementalReader reader(hourlyResyncWithMarkers());
  ClusterSource source;
  source.pods = 3;
  source.changed_from = 1 << 30;  // pod_changed names none: no pod finished
  FetchStats full;
  REQUIRE(reader.read(source, 10000, full).ok());
  source.take();

  // p3 and p4 created since, p1 deleted.
  source.pods = 5;
  source.created_from = 3;
  source.gone = 1;
  FetchStats stats;
  auto window = reader.read(source, 10060, stats);
  REQUIRE(window.ok());
  REQUIRE(stats.window_read);
  std::vector<sources::Query> asked = source.take();
  CHECK(count(asked, "pod_created_or_gone") == 1);
  CHECK(uidListOf(asked, "pod_gone") == "u3|u4");  // not the pods created before the window
  for (const std::string& changed : changeQueries(asked)) {
    CHECK(changed.find(hourlyResync().metrics.pod_created) == std::string::npos);  // selected once
  }
  REQUIRE(window->pods().size() == 5);
  CHECK(phaseOf(*window, "p0") == model::PodPhase::kRunning);
  CHECK(phaseOf(*window, "p1") == model::PodPhase::kUnknown);  // deleted while running
  CHECK(phaseOf(*window, "p3") == model::PodPhase::kRunning);
  CHECK(phaseOf(*window, "p4") == model::PodPhase::kRunning);
  CHECK(count(asked, "pod_requests") == 1);  // of the two new pods, one list

  // p4, created in the window, deleted in it too: pod_gone by uid finds it.
  source.gone = 4;
  window = reader.read(source, 10120, stats);
  REQUIRE(window.ok());
  asked = source.take();
  CHECK(uidListOf(asked, "pod_gone") == "u3|u4");
  CHECK(phaseOf(*window, "p4") == model::PodPhase::kUnknown);
  CHECK(phaseOf(*window, "p3") == model::PodPhase::kRunning);
}

TEST_CASE(
    "with staleness markers a full read takes the live pods' creation times from pod_live, and "
    "asks pod_created only of the pods not live, by uid",
    "[ingestion][incremental]") {
  IncrementalReader reader(hourlyResyncWithMarkers());
  ClusterSource source;
  source.pods = 3;
  source.gone = 2;  // deleted: pod_live leaves it out
  FetchStats full;
  auto snapshot = reader.read(source, 10000, full);
  REQUIRE(snapshot.ok());
  const std::vector<sources::Query> asked = source.take();
  CHECK(uidListOf(asked, "pod_created") == "u2");
  REQUIRE(snapshot->pods().size() == 3);
  for (const model::Pod& pod : snapshot->pods()) {
    REQUIRE(pod.created.has_value());
    CHECK(*pod.created == (pod.name == "p2" ? 1 : 1000 + (pod.name == "p0" ? 0 : 1)));
  }

  // Without staleness markers pod_live is no creation time: pod_created is asked of every pod.
  IncrementalReader without(hourlyResync());
  REQUIRE(without.read(source, 10000, full).ok());
  const std::vector<sources::Query> asked_without = source.take();
  REQUIRE(count(asked_without, "pod_created") == 1);
  for (const sources::Query& query : asked_without) {
    if (query.name == "pod_created") {
      CHECK(query.promql.find("uid=~") == std::string::npos);
    }
  }
}

// With staleness_markers off, the TSDB answers that two pods' series ended with a marker (or
// that none did): the reader says every read what the setting would save, and asks only once.
class MarkersSource final : public sources::MetricsSource {
 public:
  Result<sources::QueryBody> instantQuery(const sources::Query& query, UnixSeconds) override {
    asked.push_back(query.name);
    if (query.name == "staleness_markers_seen") {
      return sources::QueryBody{vector(R"({"metric":{},"value":[1,")" + ended + R"("]})")};
    }
    if (query.name == "node_allocatable") {
      return sources::QueryBody{
          vector(R"({"metric":{"node":"n1","resource":"cpu"},"value":[1,"4"]})")};
    }
    if (query.name == "pod_info") {
      return sources::QueryBody{vector(
          R"({"metric":{"namespace":"ns","pod":"p","uid":"u1","node":"n1"},"value":[1,"1"]})")};
    }
    return sources::QueryBody{kEmpty};
  }
  std::string describe() const override { return "markers"; }
  bool concurrent() const override { return false; }

  std::string ended = "2";
  std::vector<std::string> asked;
};

TEST_CASE("with staleness_markers off the first full read asks whether the TSDB writes them",
          "[ingestion][incremental]") {
  MarkersSource source;
  auto said = [](const FetchStats& stats) {
    return std::any_of(stats.warnings.begin(), stats.warnings.end(), [](const std::string& w) {
      return w.find("staleness_markers: true") != std::string::npos;
    });
  };
  SECTION("markers seen: every read says so") {
    IncrementalReader reader(hourlyResync());
    FetchStats first;
    REQUIRE(reader.read(source, 10000, first).ok());
    CHECK(said(first));
    reader.reset();  // a later full read does not ask again, and still says so
    FetchStats second;
    REQUIRE(reader.read(source, 10060, second).ok());
    CHECK(said(second));
    CHECK(std::count(source.asked.begin(), source.asked.end(), "staleness_markers_seen") == 1);
  }
  SECTION("none seen: nothing said") {
    source.ended = "0";
    IncrementalReader reader(hourlyResync());
    FetchStats stats;
    REQUIRE(reader.read(source, 10000, stats).ok());
    CHECK_FALSE(said(stats));
  }
  SECTION("the setting on: not asked") {
    IncrementalReader reader(hourlyResyncWithMarkers());
    FetchStats stats;
    REQUIRE(reader.read(source, 10000, stats).ok());
    CHECK(std::count(source.asked.begin(), source.asked.end(), "staleness_markers_seen") == 0);
    CHECK_FALSE(said(stats));
  }
}

// One bound pod. pod_live and pod_scheduled answer in the shape their aggregation asks: by uid
// alone or by namespace, pod and uid; where the family has no uid label, `max by (uid)` folds
// every pod into one series without labels, as Prometheus does.
class UidKeyedSource final : public sources::MetricsSource {
 public:
  Result<sources::QueryBody> instantQuery(const sources::Query& query, UnixSeconds) override {
    asked.push_back(query);
    const std::string pod = R"("namespace":"ns","pod":"p","uid":"u1")";
    if (query.name == "node_allocatable") {
      return sources::QueryBody{
          vector(R"({"metric":{"node":"n1","resource":"cpu"},"value":[1,"4"]})")};
    }
    if (query.name == "pod_info") {
      return sources::QueryBody{
          vector(R"({"metric":{)" + pod + R"(,"node":"n1"},"value":[1,"1"]})")};
    }
    if (query.name != "pod_live" && query.name != "pod_scheduled") {
      return sources::QueryBody{kEmpty};
    }
    const bool by_uid = query.promql.find("max by (uid)") != std::string::npos;
    const std::string labels = !by_uid ? pod : families_have_uid ? R"("uid":"u1")" : "";
    const std::string value = query.name == "pod_live" ? "1" : "2000";
    return sources::QueryBody{
        vector(R"({"metric":{)" + labels + R"(},"value":[1,")" + value + R"("]})")};
  }
  std::string describe() const override { return "uid-keyed"; }
  bool concurrent() const override { return false; }

  std::size_t asked_by_uid(const std::string& name) const {
    return static_cast<std::size_t>(std::count_if(asked.begin(), asked.end(), [&](const auto& q) {
      return q.name == name && q.promql.find("max by (uid") != std::string::npos;
    }));
  }

  bool families_have_uid = true;
  std::vector<sources::Query> asked;
};

TEST_CASE("a read asks the pod facts by uid, and by namespace and name where a family lacks uid",
          "[ingestion][incremental]") {
  IncrementalReader reader(hourlyResync());
  UidKeyedSource source;
  FetchStats stats;

  SECTION("every family labelled with uid: one query each, by uid, joined to pod_info") {
    auto snapshot = reader.read(source, 10000, stats);
    REQUIRE(snapshot.ok());
    REQUIRE(snapshot->pods().size() == 1);
    CHECK(snapshot->pod(0).scheduled == 2000);
    CHECK(snapshot->requestedOn(0).cpu_millis == 0);
    CHECK(count(source.asked, "pod_scheduled") == 1);
    CHECK(source.asked_by_uid("pod_scheduled") == 1);
    CHECK(source.asked_by_uid("pod_requests") == 1);
    CHECK(source.asked_by_uid("pod_info") == 0);  // the pod's identity
  }

  SECTION("a family without uid: the read starts over by namespace and name, and stays so") {
    source.families_have_uid = false;
    auto snapshot = reader.read(source, 10000, stats);
    REQUIRE(snapshot.ok());
    REQUIRE(snapshot->pods().size() == 1);
    CHECK(snapshot->pod(0).scheduled == 2000);
    CHECK(count(source.asked, "pod_scheduled") == 2);
    CHECK(source.asked_by_uid("pod_scheduled") == 1);

    source.asked.clear();
    reader.reset();  // the next read is a full one again
    REQUIRE(reader.read(source, 10060, stats).ok());
    CHECK(count(source.asked, "pod_scheduled") == 1);
    CHECK(source.asked_by_uid("pod_scheduled") == 0);
  }
}

}  // namespace
}  // namespace dagadvisor::ingestion

namespace dagadvisor::ingestion {
namespace {

TEST_CASE("kube_pod_owner is asked only of the pods whose kube_pod_info names no owner",
          "[ingestion][incremental]") {
  IncrementalReader reader(hourlyResync());
  ClusterSource source;
  source.pods = 3;
  source.info_names_owner = true;
  source.unnamed_owner = 1;
  FetchStats stats;
  auto first = reader.read(source, 10000, stats);
  REQUIRE(first.ok());
  CHECK(uidListOf(source.take(), "pod_owner") == "u1");
  CHECK(first->pods()[0].owner_kind + "/" + first->pods()[0].owner_name == "ReplicaSet/rs");

  // Two new pods, one of them without created_by_*.
  source.pods = 5;
  source.changed_from = 3;
  source.unnamed_owner = 4;
  REQUIRE(reader.read(source, 10060, stats).ok());
  CHECK(stats.window_read);
  CHECK(uidListOf(source.take(), "pod_owner") == "u4");

  // No pod named: every new one asked, in one list; a kept pod that changed keeps its owner.
  source.info_names_owner = false;
  source.pods = 7;
  source.changed_from = 4;
  REQUIRE(reader.read(source, 10120, stats).ok());
  CHECK(uidListOf(source.take(), "pod_owner") == "u5|u6");
}

}  // namespace
}  // namespace dagadvisor::ingestion
