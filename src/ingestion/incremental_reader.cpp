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

// Beyond this many new pods in one window, a full read is cheaper than the uid lists.
constexpr std::size_t kMaxNewPods = 2000;
// Uids per query: keeps each request line well below servers' header limits (~37 bytes each).
constexpr std::size_t kUidsPerQuery = 500;

constexpr QueryId kOncePerPod[] = {QueryId::kPodRequests, QueryId::kPodLabels,
                                   QueryId::kPodAnnotations, QueryId::kPodOwner};

bool readOncePerPod(QueryId id) {
  return std::find(std::begin(kOncePerPod), std::end(kOncePerPod), id) != std::end(kOncePerPod);
}

// `uid=~"a|b|…"`, the regex's special characters escaped for PromQL's double-quoted string.
std::string uidMatcher(const std::vector<const model::Pod*>& pods, std::size_t from,
                       std::size_t to) {
  std::string out = "uid=~\"";
  for (std::size_t i = from; i < to; ++i) {
    if (i > from) {
      out += '|';
    }
    for (const char c : pods[i]->uid) {
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

config::PrometheusSource withLookback(config::PrometheusSource settings, double seconds) {
  settings.lookback = config::Seconds(seconds);
  return settings;
}

PlannedQuery newestSampleQuery(const config::PrometheusSource& settings, double range_seconds,
                               IncrementalState::NewestSamples& newest) {
  return {podNewestSampleQuery(settings, config::Seconds(range_seconds)), false,
          [&newest](const sources::SampleView& sample) {
            newest.add(sample);
          }};
}

}  // namespace

IncrementalReader::IncrementalReader(const config::PrometheusSource& settings)
    : settings_(settings),
      catalog_(settings),
      limits_{static_cast<std::size_t>(settings.max_concurrent_queries),
              static_cast<std::size_t>(settings.max_series_per_query)} {}

Result<model::ClusterSnapshot> IncrementalReader::read(sources::MetricsSource& source,
                                                       UnixSeconds at, FetchStats& stats) {
  auto snapshot = needsFullRead(at) ? fullRead(source, at, stats) : windowRead(source, at, stats);
  if (!snapshot.ok()) {
    reset();  // whatever the read got this far is not kept; the next one starts over
  }
  return snapshot;
}

bool IncrementalReader::needsFullRead(UnixSeconds at) const {
  if (state_.empty() || at <= state_.readAt()) {
    return true;
  }
  const double window = at - state_.readAt() + settings_.incremental.margin.count();
  return window >= settings_.lookback.count() ||
         at - state_.fullReadAt() >= settings_.incremental.resync.count();
}

Result<model::ClusterSnapshot> IncrementalReader::fullRead(sources::MetricsSource& source,
                                                           UnixSeconds at, FetchStats& stats) {
  ClusterBuilder builder(at);
  IncrementalState::NewestSamples newest;
  std::vector<PlannedQuery> plan;
  for (std::size_t i = 0; i < kQueryCount; ++i) {
    plan.push_back(catalogQuery(catalog_, static_cast<QueryId>(i), builder));
  }
  plan.push_back(newestSampleQuery(settings_, settings_.lookback.count(), newest));
  if (auto run = runQueries(source, plan, at, stats, limits_.concurrency, limits_.max_series);
      !run.ok()) {
    return run.error();
  }
  std::vector<ClusterBuilder::UsageRecord> usage = builder.usage();
  auto snapshot = finishSnapshot(std::move(builder), catalog_);
  if (snapshot.ok()) {
    state_ = state_.after({at, true, true, at - settings_.lookback.count()}, *snapshot, newest,
                          std::move(usage));
  }
  return snapshot;
}

Result<model::ClusterSnapshot> IncrementalReader::windowRead(sources::MetricsSource& source,
                                                             UnixSeconds at, FetchStats& stats) {
  // Whole seconds: PromQL durations, and a window a little longer is as correct.
  const double window = std::ceil(at - state_.readAt() + settings_.incremental.margin.count());
  const bool usage_due = at - state_.usageReadAt() >= settings_.incremental.usage_refresh.count();
  const QueryCatalog windowed(withLookback(settings_, window));
  ClusterBuilder builder(at);
  IncrementalState::NewestSamples newest;
  std::vector<PlannedQuery> plan;
  for (std::size_t i = 0; i < kQueryCount; ++i) {
    const auto id = static_cast<QueryId>(i);
    if (id == QueryId::kPodSpec) {
      plan.push_back(builderQuery(podSpecQuery(settings_, PodSpecParts::kPendingNow), id, builder));
    } else if (!readOncePerPod(id) && (id != QueryId::kPodUsage || usage_due)) {
      plan.push_back(catalogQuery(windowed, id, builder));
    }
  }
  plan.push_back(newestSampleQuery(settings_, window, newest));
  if (auto run = runQueries(source, plan, at, stats, limits_.concurrency, limits_.max_series);
      !run.ok()) {
    return run.error();
  }

  std::vector<const model::Pod*> fresh;
  for (const model::Pod* pod : builder.podsWithInfo()) {
    if (!state_.knows(*pod)) {
      fresh.push_back(pod);
    }
  }
  const bool without_uid = std::any_of(fresh.begin(), fresh.end(),
                                       [](const model::Pod* pod) { return pod->uid.empty(); });
  if (without_uid || fresh.size() > kMaxNewPods) {
    kLog.info("full read instead of a window",
              {{"new_pods", std::to_string(fresh.size())},
               {"reason", without_uid ? "a new pod without uid" : "too many new pods"}});
    return fullRead(source, at, stats);
  }
  // The uid lists are built before the samples below add pods to the builder.
  std::vector<config::PrometheusSource> per_pod_settings;
  for (std::size_t from = 0; from < fresh.size(); from += kUidsPerQuery) {
    per_pod_settings.push_back(withSelector(
        settings_, uidMatcher(fresh, from, std::min(fresh.size(), from + kUidsPerQuery))));
  }
  std::vector<QueryCatalog> per_pod;
  per_pod.reserve(per_pod_settings.size());
  std::vector<PlannedQuery> once;
  for (const config::PrometheusSource& settings : per_pod_settings) {
    const QueryCatalog& catalog = per_pod.emplace_back(settings);
    for (QueryId id : kOncePerPod) {
      once.push_back(catalogQuery(catalog, id, builder));
    }
    once.push_back(builderQuery(podSpecQuery(settings, PodSpecParts::kContainers),
                                QueryId::kPodSpec, builder));
  }
  if (auto run = runQueries(source, once, at, stats, limits_.concurrency, limits_.max_series);
      !run.ok()) {
    return run.error();
  }

  state_.keepInto(builder, at, settings_.lookback.count());
  if (!usage_due) {
    builder.keepUsage(state_.usage());
  }
  std::vector<ClusterBuilder::UsageRecord> usage = builder.usage();
  auto snapshot = finishSnapshot(std::move(builder), catalog_);
  if (snapshot.ok()) {
    stats.window_read = true;
    kLog.debug("window read", {{"window_s", std::to_string(window)},
                               {"new_pods", std::to_string(fresh.size())},
                               {"usage_read", usage_due ? "true" : "false"}});
    state_ = state_.after({at, false, usage_due, at - window}, *snapshot, newest, std::move(usage));
  }
  return snapshot;
}

}  // namespace dagadvisor::ingestion
