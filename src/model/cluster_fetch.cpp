#include "model/cluster_fetch.h"

#include "model/cluster_builder.h"
#include "sources/prometheus/response_parser.h"

namespace dagadvisor::model {

Result<ClusterSnapshot> fetchClusterSnapshot(sources::MetricsSource& source,
                                             const QueryCatalog& catalog, UnixSeconds at,
                                             FetchStats& stats) {
  ClusterBuilder builder(at);
  for (std::size_t i = 0; i < kQueryCount; ++i) {
    const auto id = static_cast<QueryId>(i);
    const sources::Query& query = catalog.get(id);
    auto body = source.instantQuery(query, at);
    ++stats.queries;
    if (!body.ok()) {
      return body.error();
    }
    stats.bytes += body->json.size();
    auto decoded = sources::decodeInstantVector(
        body->json, [&](const sources::SampleView& sample) { builder.add(id, sample); });
    if (!decoded.ok()) {
      return makeError("query " + query.name + ": " + decoded.error().describe(), query.name);
    }
    for (const std::string& warning : decoded->warnings) {
      stats.warnings.push_back("query " + query.name + ": " + warning);
    }
  }
  return std::move(builder).build();
}

}  // namespace dagadvisor::model
