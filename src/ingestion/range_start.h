#pragma once

#include <optional>

#include "common/clock.h"
#include "ingestion/cluster_fetch.h"
#include "sources/metrics_source.h"

namespace dagadvisor::ingestion {

/// Whether a backend's range selectors hold a sample at their start. Prometheus 2 reads `x[r]`
/// at t over [t - r, t]; Prometheus 3 and VictoriaMetrics over (t - r, t]. The incremental reader
/// matches the times it keeps against the ranges its queries ask, and must match them as the
/// backend does: a pod whose newest sample lies on a range's start is in one and not the other.
enum class RangeStart { kClosed, kOpen };

/// Whether a range from `start`, read as `range_start` says, holds a sample at `sample`.
inline bool rangeHolds(RangeStart range_start, UnixSeconds start, UnixSeconds sample) {
  return range_start == RangeStart::kClosed ? sample >= start : sample > start;
}

/// The query that tells them apart, evaluated at a whole minute: a subquery of one-minute steps
/// over two minutes counts 3 steps where the start is held, 2 where it is not.
sources::Query rangeStartQuery();

/// Asks `source` at the whole minute at or before `at`, the query counted in `stats` when it is
/// answered. nullopt when it gives no clear answer (a recorded snapshot without this query, a
/// backend that refuses subqueries).
std::optional<RangeStart> probeRangeStart(sources::MetricsSource& source, UnixSeconds at,
                                          FetchStats& stats);

}  // namespace dagadvisor::ingestion
