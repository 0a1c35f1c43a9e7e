#include "server/health_handlers.h"

#include <mutex>
#include <string>

#include "server/shared_body.h"

namespace dagadvisor::server {
namespace {

constexpr const char* kText = "text/plain; charset=utf-8";

}  // namespace

void registerHealthRoutes(HttpServer& server, const SnapshotStore& store,
                          DetailsAllowed details_allowed) {
  server.route("GET", "/healthz", [](const HttpRequest&) {
    return HttpResponse{200, kText, "ok\n", {}};
  });
  server.route(
      "GET", "/readyz",
      [&store, details_allowed = std::move(details_allowed)](const HttpRequest& request) {
        const Freshness freshness = store.freshness();
        if (freshness.stale) {
          // A probe needs the status; the backend's URL and body are for operators only.
          const bool details = !details_allowed || details_allowed(request);
          return HttpResponse{
              503, kText, (details ? freshness.reason : freshness.short_reason) + "\n", {}};
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
  // The exposition text changes once per refresh; its SharedBody (and gzip, which Prometheus
  // asks for) is made once per text.
  struct Last {
    std::mutex mutex;
    std::shared_ptr<const Result<std::string>> text;
    std::shared_ptr<const SharedBody> body;
  };
  auto last = std::make_shared<Last>();
  server.route("GET", "/metrics", [&metrics, last](const HttpRequest& request) {
    const auto text = metrics.cached();
    if (!text->ok()) {
      return HttpResponse{500, kText, text->error().describe() + "\n", {}};
    }
    std::shared_ptr<const SharedBody> body;
    {
      std::lock_guard lock(last->mutex);
      if (last->text != text) {
        last->text = text;
        last->body = std::make_shared<const SharedBody>(**text);
      }
      body = last->body;
    }
    return sharedResponse(request, std::move(body), std::string(exporter::kExpositionContentType));
  });
}

}  // namespace dagadvisor::server
