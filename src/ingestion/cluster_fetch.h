#pragma once

#include <cstddef>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "ingestion/query_catalog.h"
#include "model/cluster.h"
#include "sources/metrics_source.h"
#include "sources/prometheus/response_parser.h"

namespace dagadvisor::ingestion {

/// What one query of a read cost: what the daemon received and, when the backend says so
/// (Prometheus answering stats=all), what evaluating it cost the backend. Summed over every
/// request of that name in the read: an incremental read asks the once-per-pod queries in
/// chunks of new pods' uids, and a window read that falls back to a full one asks some twice.
struct QueryCost {
  std::string query;  // the catalog name, e.g. "pod_info" (or "pod_seen")
  std::size_t requests = 0;
  std::size_t bytes = 0;
  std::size_t series = 0;                      // samples of the instant vectors: one per series
  std::optional<sources::QueryStats> backend;  // summed over the requests that reported it

  /// Adds one more request of this name.
  void add(const QueryCost& request);
};

/// What fetching cost and what the backend warned about.
struct FetchStats {
  std::size_t queries = 0;
  std::size_t bytes = 0;
  std::vector<std::string> warnings;  // "query pod_info: <backend warning>"
  std::vector<QueryCost> costs;       // one per query name, in the order first asked
  bool window_read = false;           // an incremental read of what changed (IncrementalReader)
  std::size_t series = 0;             // series the cycle's answers handed on so far
  // What `series` may reach (sources.prometheus.max_series_per_cycle): the query whose answer
  // would pass it fails as soon as its decoder reaches the series past it.
  std::size_t max_series = std::numeric_limits<std::size_t>::max();
};

/// One query of a read: what to ask, whether its failure only adds a warning, and where its
/// samples go.
struct PlannedQuery {
  sources::Query query;
  bool optional = false;
  sources::SampleVisitor sink;
};

/// Runs `plan` at `at` against `source` — up to `concurrency` at once when the source allows it —
/// and hands each body's samples to its sink on the calling thread, in plan order. A failing
/// required query fails the run and stops the others; a failing optional one only adds a
/// warning. A query answering more than `max_series` series fails as soon as its decoder
/// reaches the one past the cap, naming the query and sources.prometheus.max_series_per_query.
Result<void> runQueries(sources::MetricsSource& source, const std::vector<PlannedQuery>& plan,
                        UnixSeconds at, FetchStats& stats, std::size_t concurrency = 1,
                        std::size_t max_series = std::numeric_limits<std::size_t>::max());

class ClusterBuilder;

/// The catalog's query `id`, its samples going into `builder`.
PlannedQuery catalogQuery(const QueryCatalog& catalog, QueryId id, ClusterBuilder& builder);

/// `query`, a variant of the catalog's `id` (same answer shape: an incremental read's window or
/// uid list), its samples going into `builder` as that query's.
PlannedQuery builderQuery(sources::Query query, QueryId id, ClusterBuilder& builder);

/// A builder's snapshot, or an Error when no node answered (see fetchClusterSnapshot).
Result<model::ClusterSnapshot> finishSnapshot(model::ClusterSnapshot snapshot,
                                              const QueryCatalog& catalog);

/// Runs every catalog query at `at` against `source` — up to `concurrency` at once when the source
/// allows it — decodes each body in place and builds the snapshot. A failing kube-state-metrics
/// query fails the whole fetch: a partial cluster would produce wrong advice (a node missing its
/// pods looks idle). A failing optional query (scheduler, usage) only adds a warning. A query
/// answering more than `max_series` series fails as soon as its decoder reaches the one past
/// the cap, naming the query and sources.prometheus.max_series_per_query.
Result<model::ClusterSnapshot> fetchClusterSnapshot(
    sources::MetricsSource& source, const QueryCatalog& catalog, UnixSeconds at, FetchStats& stats,
    std::size_t concurrency = 1, std::size_t max_series = std::numeric_limits<std::size_t>::max());

}  // namespace dagadvisor::ingestion
