#include "ingestion/promql_reader.h"

namespace dagadvisor::ingestion {

PromqlClusterReader::PromqlClusterReader(sources::MetricsSource& source,
                                         const config::PrometheusSource& settings)
    : source_(&source),
      catalog_(settings),
      concurrency_(static_cast<std::size_t>(settings.max_concurrent_queries)),
      max_series_(static_cast<std::size_t>(settings.max_series_per_query)) {}

Result<model::ClusterSnapshot> PromqlClusterReader::read(UnixSeconds at, FetchStats& stats) {
  return fetchClusterSnapshot(*source_, catalog_, at, stats, concurrency_, max_series_);
}

}  // namespace dagadvisor::ingestion
