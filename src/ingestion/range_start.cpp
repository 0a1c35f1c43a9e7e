#include "ingestion/range_start.h"

#include <cmath>

#include "sources/prometheus/response_parser.h"

namespace dagadvisor::ingestion {

sources::Query rangeStartQuery() {
  return {"range_start", "count_over_time(vector(1)[2m:1m])"};
}

std::optional<RangeStart> probeRangeStart(sources::MetricsSource& source, UnixSeconds at,
                                          FetchStats& stats) {
  constexpr double kMinute = 60;
  const sources::Query query = rangeStartQuery();
  auto body = source.instantQuery(query, std::floor(at / kMinute) * kMinute);
  if (!body.ok()) {
    return std::nullopt;
  }
  ++stats.queries;
  stats.bytes += body->json.size();
  stats.costs.push_back(
      {query.name, 1, body->json.size(), 1, sources::parseQueryStats(body->json)});
  std::optional<double> steps;
  const auto decoded = sources::decodeInstantVector(
      *body, [&steps](const sources::SampleView& sample) { steps = sample.value; });
  if (!decoded.ok() || !steps) {
    return std::nullopt;
  }
  if (*steps == 3) {
    return RangeStart::kClosed;
  }
  if (*steps == 2) {
    return RangeStart::kOpen;
  }
  return std::nullopt;
}

}  // namespace dagadvisor::ingestion
