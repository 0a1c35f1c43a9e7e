#include "server/health_handlers.h"

#include <mutex>
#include <string>

#include "server/shared_body.h"

namespace dagadvisor::server {
namespace {

constexpr const char* kText = "text/plain; charset=utf-8";

// The status line, then, after a rejected reload, that the daemon runs its previous
// configuration: an operator who reloaded looks here for the outcome.
std::string readinessText(const Freshness& freshness, bool details) {
  std::string text = freshness.stale ? (details ? freshness.reason : freshness.short_reason) : "ok";
  text += "\n";
  if (!freshness.reload_problem.empty()) {
    text += "last reload rejected, running the previous configuration";
    text += details ? ": " + freshness.reload_problem + "\n" : "\n";
  }
  return text;
}

}  // namespace

void registerHealthRoutes(HttpServer& server, const SnapshotStore& store,
                          DetailsAllowed details_allowed) {
  server.route("GET", "/healthz", [](const HttpRequest&) {
    return HttpResponse{200, kText, "ok\n", {}};
  });
  server.route("GET", "/readyz",
               [&store, details_allowed = std::move(details_allowed)](const HttpRequest& request) {
                 const Freshness freshness = store.freshness();
                 // A probe needs the status; the backend's URL and body are for operators only.
                 const bool details = !details_allowed || details_allowed(request);
                 return HttpResponse{
                     freshness.stale ? 503 : 200, kText, readinessText(freshness, details), {}};
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
