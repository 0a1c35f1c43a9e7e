#pragma once

#include <prometheus/collectable.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "exporter/self_metrics.h"

namespace dagadvisor::exporter {

/// The daemon's SelfMetrics under the `cluster` label its running configuration names, as one
/// Collectable for MetricsHandler. A reload that changes analysis.cluster replaces them whole: a
/// fresh registry whose counters start again under the new label, so that no series keeps the
/// label of the start-up configuration. Only the daemon's loop calls current() and
/// setCluster(); Collect() may run on a scrape's thread.
class ClusterSelfMetrics final : public prometheus::Collectable {
 public:
  ClusterSelfMetrics(std::string cluster, std::string version);

  /// The metrics of the current cluster; valid until the next setCluster().
  SelfMetrics& current() { return *self_; }

  /// Starts the metrics over under `cluster` when it is another one; no-op otherwise.
  void setCluster(const std::string& cluster);

  std::vector<prometheus::MetricFamily> Collect() const override;

 private:
  const std::string version_;
  std::string cluster_;
  mutable std::mutex mutex_;  // guards registry_ against Collect() on another thread
  std::shared_ptr<prometheus::Registry> registry_;
  std::unique_ptr<SelfMetrics> self_;
};

}  // namespace dagadvisor::exporter
