#include "model/cluster_fetch.h"

#include "model/cluster_builder.h"
#include "sources/prometheus/response_parser.h"

namespace dagadvisor::model {

namespace {

// One query into the builder; the error names the query.
Result<void> fetchOne(sources::MetricsSource& source, const sources::Query& query, QueryId id,
                      UnixSeconds at, ClusterBuilder& builder, FetchStats& stats) {
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
  return {};
}

}  // namespace

Result<ClusterSnapshot> fetchClusterSnapshot(sources::MetricsSource& source,
                                             const QueryCatalog& catalog, UnixSeconds at,
                                             FetchStats& stats) {
  ClusterBuilder builder(at);
  for (std::size_t i = 0; i < kQueryCount; ++i) {
    const auto id = static_cast<QueryId>(i);
    Result<void> status = fetchOne(source, catalog.get(id), id, at, builder, stats);
    if (status.ok()) {
      continue;
    }
    if (!QueryCatalog::isOptional(id)) {
      return status.error();
    }
    stats.warnings.push_back("optional data missing, analysis goes on without it: " +
                             status.error().describe());
  }
  return std::move(builder).build();
}

}  // namespace dagadvisor::model
