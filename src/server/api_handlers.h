#pragma once

#include "server/http_server.h"
#include "server/snapshot_store.h"

namespace dagadvisor::server {

/// Registers the analysis API on `server`, served from `store` (which must outlive the server):
///   GET /api/v1/recommendations  ?kind= &severity= (minimum) &namespace= &dag=; YAML instead of
///       JSON when the Accept header asks for application/yaml
///   GET /api/v1/findings, /api/v1/dags, /api/v1/nodes, /api/v1/scheduling, /api/v1/summary
///   GET /api/v1/dags/{run}            ?format=json (default) | dot | svg; {run} is the run id
///       "<namespace>/<dag>/<run>" or an unambiguous run name
///   GET /api/v1/dags/{run}/gantt.svg  the run's tasks per node
/// JSON bodies are the report envelope (cluster, generated_at, data_time, data_age_seconds,
/// stale, warnings) plus the payload. Unfiltered payloads come from the publish-time cache;
/// per-run renderings are cached for the cycle on first request. Before the first analysis:
/// 503 {"error": "no analysis yet"}; a bad parameter: 400; an unknown run: 404.
void registerApiRoutes(HttpServer& server, const SnapshotStore& store);

}  // namespace dagadvisor::server
