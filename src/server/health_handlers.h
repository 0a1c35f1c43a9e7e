#pragma once

#include <functional>

#include "exporter/metrics_handler.h"
#include "server/http_server.h"
#include "server/snapshot_store.h"

namespace dagadvisor::server {

/// Registers GET /healthz (200 "ok" while the process serves) and GET /readyz (200 "ok" when a
/// good, fresh analysis is served; else 503 with the reason from SnapshotStore::freshness() as
/// text). `store` must outlive the server.
void registerHealthRoutes(HttpServer& server, const SnapshotStore& store);

/// Registers POST /-/reload: calls `request_reload` (which must only signal the cycle loop) and
/// answers 202 {"status": "reload requested"}. The outcome shows on /metrics
/// (dagadvisor_config_last_reload_successful) and in the log.
void registerReloadRoute(HttpServer& server, std::function<void()> request_reload);

/// Registers GET /metrics, rendered by `metrics` (which must outlive the server) per scrape.
void registerMetricsRoute(HttpServer& server, const exporter::MetricsHandler& metrics);

}  // namespace dagadvisor::server
