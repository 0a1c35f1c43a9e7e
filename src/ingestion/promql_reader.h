#pragma once

#include <cstddef>
#include <string>

#include "config/config.h"
#include "ingestion/cluster_reader.h"
#include "ingestion/query_catalog.h"

namespace dagadvisor::ingestion {

/// Reads the cluster by asking the query catalog's PromQL of any MetricsSource: a live
/// Prometheus-compatible server, a recorded snapshot, or either through a SnapshotWriter.
/// Queries run in parallel up to sources.prometheus.max_concurrent_queries when the source
/// allows it (fetchClusterSnapshot).
class PromqlClusterReader final : public ClusterReader {
 public:
  /// Reads through `source` (not owned; must outlive the reader) with the catalog and limits
  /// of `settings`.
  PromqlClusterReader(sources::MetricsSource& source, const config::PrometheusSource& settings);

  Result<model::ClusterSnapshot> read(UnixSeconds at, FetchStats& stats) override;
  std::string describe() const override { return source_->describe(); }
  sources::MetricsSource& recordedAnswers() override { return *source_; }
  void recordInto(sources::SnapshotWriter& writer) override { source_ = &writer; }

 private:
  sources::MetricsSource* source_;
  QueryCatalog catalog_;
  std::size_t concurrency_;
  std::size_t max_series_;
};

}  // namespace dagadvisor::ingestion
