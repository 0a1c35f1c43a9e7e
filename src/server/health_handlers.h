#pragma once

#include <functional>

#include "exporter/metrics_handler.h"
#include "server/http_server.h"
#include "server/snapshot_store.h"

namespace dagadvisor::server {

/// Whether a request may see the details of a failure (URLs, backend bodies): the client
/// authenticated, or the server asks for no credentials at all. Must be thread-safe.
using DetailsAllowed = std::function<bool(const HttpRequest&)>;

/// Registers GET /healthz (200 "ok" while the process serves) and GET /readyz (200 "ok" when a
/// good, fresh analysis is served; else 503 with the reason from SnapshotStore::freshness() as
/// text: the full reason where `details_allowed` says so or is null, else its short form). After
/// a rejected reload a second line says so, with the reason where details are allowed.
/// `store` must outlive the server.
void registerHealthRoutes(HttpServer& server, const SnapshotStore& store,
                          DetailsAllowed details_allowed = nullptr);

/// Registers POST /-/reload: calls `request_reload` (which must only signal the cycle loop) and
/// answers 202 {"status": "reload requested"}. The outcome shows on /metrics
/// (dagadvisor_config_last_reload_successful) and in the log.
void registerReloadRoute(HttpServer& server, std::function<void()> request_reload);

/// Registers GET /metrics, rendered by `metrics` (which must outlive the server) per scrape.
void registerMetricsRoute(HttpServer& server, const exporter::MetricsHandler& metrics);

}  // namespace dagadvisor::server
