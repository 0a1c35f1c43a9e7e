#include "server/health_handlers.h"

#include <string>

namespace dagadvisor::server {
namespace {

constexpr const char* kText = "text/plain; charset=utf-8";

}  // namespace

void registerHealthRoutes(HttpServer& server, const SnapshotStore& store) {
  server.route("GET", "/healthz", [](const HttpRequest&) {
    return HttpResponse{200, kText, "ok\n", {}};
  });
  server.route("GET", "/readyz", [&store](const HttpRequest&) {
    const Freshness freshness = store.freshness();
    if (freshness.stale) {
      return HttpResponse{503, kText, freshness.reason + "\n", {}};
    }
    return HttpResponse{200, kText, "ok\n", {}};
  });
}

void registerReloadRoute(HttpServer& server, std::function<void()> request_reload) {
  server.route(
      "POST", "/-/reload", [request_reload = std::move(request_reload)](const HttpRequest&) {
        request_reload();
        return HttpResponse{202, "application/json", R"({"status":"reload requested"})", {}};
      });
}

void registerMetricsRoute(HttpServer& server, const exporter::MetricsHandler& metrics) {
  server.route("GET", "/metrics", [&metrics](const HttpRequest&) {
    auto body = metrics.render();
    if (!body) {
      return HttpResponse{500, kText, body.error().describe() + "\n", {}};
    }
    return HttpResponse{200, std::string(exporter::kExpositionContentType), std::move(*body), {}};
  });
}

}  // namespace dagadvisor::server
