#pragma once

#include "server/http_server.h"
#include "server/snapshot_store.h"

namespace dagadvisor::server {

/// Registers the analysis API on `server`, served from `store` (which must outlive the server):
///   GET /api/v1/recommendations  ?kind= &severity= (minimum) &namespace= &dag=
///   GET /api/v1/findings, /api/v1/dags, /api/v1/summary (cluster summary and detectors)
/// Each body is the report envelope (cluster, generated_at, data_time, data_age_seconds, stale,
/// warnings) plus the payload. Unfiltered payloads come from the publish-time cache; filtered
/// recommendations are rendered per request. Before the first analysis: 503 {"error": "no
/// analysis yet"}; a bad filter value: 400.
void registerApiRoutes(HttpServer& server, const SnapshotStore& store);

}  // namespace dagadvisor::server
