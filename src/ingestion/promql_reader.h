#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "config/config.h"
#include "ingestion/cluster_reader.h"
#include "ingestion/incremental_reader.h"
#include "ingestion/network_receive_reader.h"
#include "ingestion/query_catalog.h"

namespace dagadvisor::ingestion {

/// Reads the cluster by asking the query catalog's PromQL of any MetricsSource: a live
/// Prometheus-compatible server, a recorded snapshot, or either through a SnapshotWriter.
/// Queries run in parallel up to sources.prometheus.max_concurrent_queries when the source
/// allows it (fetchClusterSnapshot). With sources.prometheus.incremental.resync above 0 (the
/// app sets it to 0 for a one-shot read), reads after the first ask only what changed
/// (IncrementalReader); recording turns that off, so that a recorded snapshot holds the
/// catalog's full answers.
class PromqlClusterReader final : public ClusterReader {
 public:
  /// Reads through `source` (not owned; must outlive the reader) with the catalog and limits
  /// of `settings`, and of pod annotations `annotations` (every one by default).
  PromqlClusterReader(sources::MetricsSource& source, const config::PrometheusSource& settings,
                      const AnnotationKeys& annotations = std::nullopt);

  Result<model::ClusterSnapshot> read(UnixSeconds at, FetchStats& stats) override;
  NetworkReceiveByPod readNetworkReceive(const model::ClusterSnapshot& cluster,
                                         std::span<const model::PodId> pods, UnixSeconds at,
                                         FetchStats& stats) override {
    return network_.read(*source_, cluster, pods, at, stats);
  }
  std::string describe() const override { return source_->describe(); }
  sources::MetricsSource& recordedAnswers() override { return *source_; }
  /// A recording holds the catalog's full answers, every annotation too: a replay may read
  /// it under other settings (another dependencies annotation).
  void recordInto(sources::SnapshotWriter& writer) override {
    source_ = &writer;
    incremental_.reset();
    network_.forget();
    catalog_ = QueryCatalog(settings_);
  }

 private:
  sources::MetricsSource* source_;
  config::PrometheusSource settings_;
  std::optional<IncrementalReader> incremental_;
  NetworkReceiveReader network_;
  QueryCatalog catalog_;
  std::size_t concurrency_;
  std::size_t max_series_;
};

}  // namespace dagadvisor::ingestion
