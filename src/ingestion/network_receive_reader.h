#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>

#include "common/clock.h"
#include "config/config.h"
#include "ingestion/cluster_fetch.h"
#include "model/cluster.h"
#include "sources/metrics_source.h"

namespace dagadvisor::ingestion {

/// By pod of the snapshot the pods were named in.
using NetworkReceiveByPod = std::unordered_map<model::PodId, model::NetworkReceive>;

/// What finished task pods received over the network while they ran (cAdvisor), the figures a
/// transfer cost is measured from (analysis/transfer_prices.h). Asked by name, per namespace, of
/// the pods the caller names, never of every pod: a pod's network series is one more per pod
/// that only the task pods with parents need. A finished pod's counter no longer changes, so each
/// pod is asked once and its answer kept (or that none came) while the caller keeps naming it.
class NetworkReceiveReader {
 public:
  explicit NetworkReceiveReader(const config::PrometheusSource& settings);

  /// The figures of `pods` of `cluster` that answered. The first query that fails ends the read
  /// with one warning in `stats`; the pods not answered are asked again next time.
  NetworkReceiveByPod read(sources::MetricsSource& source, const model::ClusterSnapshot& cluster,
                           std::span<const model::PodId> pods, UnixSeconds at, FetchStats& stats);

  /// Forgets every answer kept (a recording must hold the queries).
  void forget() { known_.clear(); }

 private:
  config::PrometheusSource settings_;
  std::size_t max_series_;
  // By namespace/name/uid; nullopt: asked, and no series answered.
  std::unordered_map<std::string, std::optional<model::NetworkReceive>> known_;
};

}  // namespace dagadvisor::ingestion
