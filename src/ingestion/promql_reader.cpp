#include "ingestion/promql_reader.h"

namespace dagadvisor::ingestion {

PromqlClusterReader::PromqlClusterReader(sources::MetricsSource& source,
                                         const config::PrometheusSource& settings,
                                         const AnnotationKeys& annotations)
    : source_(&source),
      settings_(settings),
      network_(settings),
      catalog_(settings, PodFactKey::kNamespacePodUid, annotations),
      concurrency_(static_cast<std::size_t>(settings.max_concurrent_queries)),
      max_series_(static_cast<std::size_t>(settings.max_series_per_query)) {
  if (settings.incremental.resync.count() > 0) {
    incremental_.emplace(settings, annotations);
  }
}

Result<model::ClusterSnapshot> PromqlClusterReader::read(UnixSeconds at, FetchStats& stats) {
  if (incremental_) {
    return incremental_->read(*source_, at, stats);
  }
  return fetchClusterSnapshot(*source_, catalog_, at, stats, concurrency_, max_series_);
}

}  // namespace dagadvisor::ingestion
