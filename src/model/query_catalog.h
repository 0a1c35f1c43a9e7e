#pragma once

#include <array>
#include <cstddef>
#include <string>

#include "config/config.h"
#include "sources/metrics_source.h"

namespace dagadvisor::model {

/// Every PromQL the cycle sends, in one place. Each query is aggregated on the server (`max by`)
/// so that HA Prometheus pairs and sharded kube-state-metrics never double-count, and pod queries
/// look back over `lookback` (`last_over_time`) so pods deleted after finishing are still seen.
enum class QueryId : std::size_t {
  kNodeAllocatable,
  kNodeLabels,
  kNodeTaints,
  kPodInfo,
  kPodLive,
  kPodPhase,
  kPodRequests,
  kPodLabels,
  kPodAnnotations,
  kPodOwner,
  kPodCreated,
  kPodScheduled,
  kPodStarted,
  kPodCompleted,
  kCount
};

inline constexpr std::size_t kQueryCount = static_cast<std::size_t>(QueryId::kCount);

class QueryCatalog {
 public:
  /// Builds every query from the configured metric names, extra selector and lookback.
  explicit QueryCatalog(const config::PrometheusSource& settings);

  const sources::Query& get(QueryId id) const { return queries_[static_cast<std::size_t>(id)]; }
  const std::array<sources::Query, kQueryCount>& all() const { return queries_; }

 private:
  std::array<sources::Query, kQueryCount> queries_;
};

}  // namespace dagadvisor::model
