#pragma once

#include <cstddef>

#include "common/result.h"
#include "config/config.h"
#include "ingestion/cluster_fetch.h"
#include "ingestion/incremental_state.h"
#include "ingestion/query_catalog.h"
#include "model/cluster.h"
#include "sources/metrics_source.h"

namespace dagadvisor::ingestion {

/// Reads that cost Prometheus what changed, not what exists (issue #18). The first read, a read
/// at least `incremental.resync` after the last full one, a read after a failed one and a read
/// not later than the previous one are full reads: the catalog's 15 queries, plus pod_seen over
/// the lookback (podNewestSampleQuery). Every other read asks over a window from the previous
/// read's time minus `incremental.margin` to `at`:
///  - pod info, phases, times, liveness, nodes and the scheduler: the catalog's queries with the
///    lookback cut to the window (the node and scheduler ones have none: read whole), and of
///    pod_spec what the pods pending unbound now tolerate and select (instant: no lookback);
///  - requests, labels, annotations, owner and the app containers' requests of pod_spec (which
///    never change once a pod exists): over the whole lookback, only for the pods new in the
///    window (`uid=~"…"`, 500 uids a request);
///  - pod_usage only every `incremental.usage_refresh`, kept in between;
///  - pod_seen over the window, so that a kept pod is dropped once its newest sample leaves the
///    lookback, as the full read drops it.
/// Pods not answered in the window are kept as the last read left them (their series had no
/// sample since: nothing of them changed).
class IncrementalReader {
 public:
  explicit IncrementalReader(const config::PrometheusSource& settings);

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
  Result<model::ClusterSnapshot> fullRead(sources::MetricsSource& source, UnixSeconds at,
                                          FetchStats& stats);
  Result<model::ClusterSnapshot> windowRead(sources::MetricsSource& source, UnixSeconds at,
                                            FetchStats& stats);

  config::PrometheusSource settings_;
  QueryCatalog catalog_;
  Limits limits_;
  IncrementalState state_;
};

}  // namespace dagadvisor::ingestion
