#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "report/analysis_report.h"

namespace prometheus {
class Registry;
class Counter;
class Gauge;
class Histogram;
template <typename T>
class Family;
}  // namespace prometheus

namespace dagadvisor::exporter {

/// The daemon's own health metrics for one cluster (cycles, durations, source, detectors, config
/// reloads, build info), kept in a prometheus::Registry that metrics_handler serialises. Several
/// instances (one per cluster) may share one registry: series differ by their `cluster` label.
/// Thread-safe (prometheus-cpp metrics are).
class SelfMetrics {
 public:
  SelfMetrics(std::shared_ptr<prometheus::Registry> registry, std::string cluster,
              std::string_view version);

  /// A successful cycle: counts it, observes its duration, stamps the success time, marks the
  /// report's source up and adds its queries and bytes, and sets per-detector duration/success.
  void recordCycle(const report::AnalysisReport& report);

  /// A failed cycle: counts it and marks `source` down. `reason` is never a label (unbounded
  /// values); /readyz and the log carry it.
  void recordCycleFailure(std::string_view source, std::string_view reason);

  /// Whether the served analysis is stale, and the age of its data in seconds.
  void setStale(bool stale, double data_age_seconds);

  void setConfigReloadSuccessful(bool ok);

  const std::shared_ptr<prometheus::Registry>& registry() const { return registry_; }

 private:
  // Per query of the catalog and read kind: bytes and series always, the backend's figures when
  // it gave them. The series of a query the previous read of that kind asked and this one did
  // not are removed (it cost nothing this time; a 0 would read as "asked, and free").
  void recordQueryCosts(const std::vector<report::QueryCostRow>& costs);
  struct QueryGauges {
    std::string read;
    std::string query;
    std::vector<prometheus::Gauge*> gauges;  // with the family each came from, in `families`
    std::vector<prometheus::Family<prometheus::Gauge>*> families;
  };
  std::vector<QueryGauges> query_gauges_;

  std::shared_ptr<prometheus::Registry> registry_;
  std::string cluster_;
  prometheus::Family<prometheus::Gauge>& build_info_;
  prometheus::Family<prometheus::Histogram>& cycle_duration_;
  prometheus::Family<prometheus::Counter>& cycles_;
  prometheus::Family<prometheus::Gauge>& last_success_;
  prometheus::Family<prometheus::Gauge>& stale_;
  prometheus::Family<prometheus::Gauge>& data_age_;
  prometheus::Family<prometheus::Gauge>& source_up_;
  prometheus::Family<prometheus::Counter>& source_queries_;
  prometheus::Family<prometheus::Counter>& source_bytes_;
  prometheus::Family<prometheus::Gauge>& query_bytes_;
  prometheus::Family<prometheus::Gauge>& query_series_;
  prometheus::Family<prometheus::Gauge>& query_eval_;
  prometheus::Family<prometheus::Gauge>& query_exec_;
  prometheus::Family<prometheus::Gauge>& query_samples_;
  prometheus::Family<prometheus::Gauge>& detector_duration_;
  prometheus::Family<prometheus::Gauge>& detector_success_;
  prometheus::Family<prometheus::Gauge>& reload_ok_;
};

}  // namespace dagadvisor::exporter
