#include "ingestion/cluster_fetch.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <new>
#include <optional>
#include <thread>
#include <utility>

#include "common/log.h"
#include "ingestion/cluster_builder.h"
#include "ingestion/series_once.h"
#include "sources/prometheus/response_parser.h"

namespace dagadvisor::ingestion {

namespace {

const log::Logger kLog("fetch");

std::string millisSince(std::chrono::steady_clock::time_point start) {
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - start);
  return std::to_string(ms.count());
}

std::string millis(double seconds) {
  return std::to_string(seconds * 1000);
}

// Which query is large or slow to decode, or costly for the backend: the first thing to ask of a
// slow cycle, or of a Prometheus that a cycle loads.
void logCost(const QueryCost& cost, const std::string& decode_ms) {
  if (!cost.backend) {
    kLog.debug("query decoded", {{"query", cost.query},
                                 {"bytes", std::to_string(cost.bytes)},
                                 {"samples", std::to_string(cost.series)},
                                 {"decode_ms", decode_ms}});
    return;
  }
  kLog.debug("query decoded",
             {{"query", cost.query},
              {"bytes", std::to_string(cost.bytes)},
              {"samples", std::to_string(cost.series)},
              {"decode_ms", decode_ms},
              {"backend_eval_ms", millis(cost.backend->eval_seconds)},
              {"backend_exec_ms", millis(cost.backend->exec_seconds)},
              {"backend_samples",
               std::to_string(static_cast<long long>(cost.backend->queryable_samples))}});
}

// Decodes one body into its sink; the error names the query.
Result<void> decodeInto(const PlannedQuery& planned, const Result<sources::QueryBody>& body,
                        FetchStats& stats, std::size_t max_series) {
  ++stats.queries;
  if (!body.ok()) {
    return body.error();
  }
  const sources::Query& query = planned.query;
  stats.bytes += body->json.size();
  const auto started = std::chrono::steady_clock::now();
  // The cycle's bound binds when less of it is left than a query may hold.
  const std::size_t cycle_left = stats.max_series - std::min(stats.max_series, stats.series);
  const bool cycle_binds = cycle_left < max_series;
  const sources::DecodeLimits limits{cycle_binds ? cycle_left : max_series,
                                     "sources.prometheus.max_series_per_query"};
  SeriesOnce once(planned.sink);
  std::size_t seen = 0;
  auto decoded = sources::decodeInstantVector(
      *body,
      [&once, &seen](const sources::SampleView& sample) {
        ++seen;
        once(sample);
      },
      limits);
  stats.series += seen;
  const std::size_t series = decoded.ok() ? decoded->samples : 0;
  const QueryCost cost{query.name, 1, body->json.size(), series,
                       sources::parseQueryStats(body->json)};
  logCost(cost, millisSince(started));
  const auto same = std::find_if(stats.costs.begin(), stats.costs.end(),
                                 [&](const QueryCost& c) { return c.query == query.name; });
  if (same == stats.costs.end()) {
    stats.costs.push_back(cost);
  } else {
    same->add(cost);
  }
  if (!decoded.ok() && cycle_binds && seen == cycle_left) {
    return makeError("query " + query.name + ": the cycle's answers pass " +
                         std::to_string(stats.max_series) +
                         " series in all (the cap sources.prometheus.max_series_per_cycle)",
                     query.name);
  }
  if (!decoded.ok()) {
    return makeError("query " + query.name + ": " + decoded.error().describe(), query.name);
  }
  if (once.repeated()) {
    return makeError("query " + query.name + ": the answer repeats the series " + *once.repeated() +
                         " (a proxy or a backend not following the Prometheus API); its "
                         "samples are not summed",
                     query.name);
  }
  for (const std::string& warning : decoded->warnings) {
    stats.warnings.push_back("query " + query.name + ": " + warning);
  }
  return {};
}

// The cycle is lost once a required query failed: queries in flight end now instead of at
// their timeout, and queries not yet sent fail unsent.
void stopOtherQueries(sources::MetricsSource& source, const std::string& failed_query) {
  if (const CancellationPtr cancel = source.cancellation()) {
    cancel->cancel("required query " + failed_query + " failed");
  }
}

// Runs the queries on up to `workers` threads and hands each body to `consume` on the calling
// thread, in plan order, as soon as it and those before it arrived: the builder stays
// single-threaded and at most a few bodies wait in memory.
class ParallelFetch {
 public:
  ParallelFetch(sources::MetricsSource& source, const std::vector<PlannedQuery>& plan,
                UnixSeconds at, std::size_t workers)
      : source_(source), plan_(plan), at_(at), results_(plan.size()) {
    for (std::size_t w = 0; w < workers; ++w) {
      threads_.emplace_back([this] { work(); });
    }
  }
  ~ParallelFetch() {
    stop_ = true;
    for (std::thread& t : threads_) {
      t.join();
    }
  }
  ParallelFetch(const ParallelFetch&) = delete;
  ParallelFetch& operator=(const ParallelFetch&) = delete;

  /// The first required query that failed, whose error is the cycle's (the others then
  /// only say "cancelled").
  std::optional<Error> firstFailure() {
    std::lock_guard lock(mutex_);
    return first_failure_;
  }

  /// Waits for the body of query `index` and takes it out.
  Result<sources::QueryBody> take(std::size_t index) {
    std::unique_lock lock(mutex_);
    arrived_.wait(lock, [&] { return results_[index].has_value(); });
    Result<sources::QueryBody> out = std::move(*results_[index]);
    results_[index].reset();
    return out;
  }

 private:
  void work() {
    for (std::size_t i = next_++; i < plan_.size() && !stop_; i = next_++) {
      const PlannedQuery& planned = plan_[i];
      auto body = queryOnThisThread(planned.query);
      if (!body.ok() && !planned.optional) {
        // Here, not when the caller takes it: the other worker must not send its next one.
        stopOtherQueries(source_, planned.query.name);
        std::lock_guard lock(mutex_);
        if (!first_failure_) {
          first_failure_ = body.error();
        }
      }
      std::lock_guard lock(mutex_);
      results_[i].emplace(std::move(body));
      arrived_.notify_all();
    }
  }

  // An exception must not leave a worker thread (std::terminate): under a memory limit a
  // query's allocations may throw std::bad_alloc, which fails that query like any error.
  Result<sources::QueryBody> queryOnThisThread(const sources::Query& query) {
    try {
      return source_.instantQuery(query, at_);
    } catch (const std::bad_alloc&) {
      return makeError("query " + query.name + ": out of memory (std::bad_alloc)", query.name);
    }
  }

  sources::MetricsSource& source_;
  const std::vector<PlannedQuery>& plan_;
  UnixSeconds at_;
  std::atomic<std::size_t> next_{0};
  std::atomic<bool> stop_{false};
  std::mutex mutex_;
  std::condition_variable arrived_;
  std::vector<std::optional<Result<sources::QueryBody>>> results_;
  std::optional<Error> first_failure_;
  std::vector<std::thread> threads_;
};

}  // namespace

void QueryCost::add(const QueryCost& request) {
  requests += request.requests;
  bytes += request.bytes;
  series += request.series;
  if (request.backend) {
    if (!backend) {
      backend = request.backend;
    } else {
      backend->eval_seconds += request.backend->eval_seconds;
      backend->exec_seconds += request.backend->exec_seconds;
      backend->queryable_samples += request.backend->queryable_samples;
      backend->peak_samples = std::max(backend->peak_samples, request.backend->peak_samples);
    }
  }
}

Result<void> runQueries(sources::MetricsSource& source, const std::vector<PlannedQuery>& plan,
                        UnixSeconds at, FetchStats& stats, std::size_t concurrency,
                        std::size_t max_series) {
  std::optional<ParallelFetch> parallel;
  if (source.concurrent() && concurrency > 1) {
    parallel.emplace(source, plan, at, std::min(concurrency, plan.size()));
  }
  for (std::size_t i = 0; i < plan.size(); ++i) {
    const PlannedQuery& planned = plan[i];
    const auto body = parallel ? parallel->take(i) : source.instantQuery(planned.query, at);
    Result<void> status = decodeInto(planned, body, stats, max_series);
    if (status.ok()) {
      continue;
    }
    if (!planned.optional) {
      stopOtherQueries(source, planned.query.name);  // so ~ParallelFetch joins at once
      if (const auto first = parallel ? parallel->firstFailure() : std::nullopt) {
        return *first;
      }
      return status.error();
    }
    stats.warnings.push_back("optional data missing or cut short, analysis goes on without it: " +
                             status.error().describe());
  }
  return {};
}

PlannedQuery catalogQuery(const QueryCatalog& catalog, QueryId id, ClusterBuilder& builder) {
  return builderQuery(catalog.get(id), id, builder);
}

PlannedQuery builderQuery(sources::Query query, QueryId id, ClusterBuilder& builder) {
  return {std::move(query), QueryCatalog::isOptional(id),
          [&builder, id](const sources::SampleView& sample) {
            builder.add(id, sample);
          }};
}

Result<model::ClusterSnapshot> finishSnapshot(model::ClusterSnapshot snapshot,
                                              const QueryCatalog& catalog) {
  if (snapshot.nodes().empty()) {
    // Every answer was empty or a scalar: publishing this as a fresh, empty analysis would
    // tell the operators that all is well.
    return makeError(
        "no node in the answers (empty or scalar results): is kube-state-metrics "
        "scraped, and does sources.prometheus.selector match its series?",
        catalog.get(QueryId::kNodeAllocatable).name);
  }
  return snapshot;
}

Result<model::ClusterSnapshot> fetchClusterSnapshot(sources::MetricsSource& source,
                                                    const QueryCatalog& catalog, UnixSeconds at,
                                                    FetchStats& stats, std::size_t concurrency,
                                                    std::size_t max_series) {
  ClusterBuilder builder(at);
  std::vector<PlannedQuery> plan;
  plan.reserve(kQueryCount);
  for (std::size_t i = 0; i < kQueryCount; ++i) {
    plan.push_back(catalogQuery(catalog, static_cast<QueryId>(i), builder));
  }
  if (Result<void> run = runQueries(source, plan, at, stats, concurrency, max_series); !run.ok()) {
    return run.error();
  }
  return finishSnapshot(std::move(builder).build(), catalog);
}

}  // namespace dagadvisor::ingestion
