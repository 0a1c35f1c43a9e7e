#include "server/api_handlers.h"

#include <utility>
#include <vector>

#include "report/report_json.h"

namespace dagadvisor::server {
namespace {

using Payloads = std::vector<std::pair<std::string, std::string>>;

HttpResponse envelopeResponse(const SnapshotStore& store, const Published& published,
                              const Payloads& payloads) {
  const auto envelope =
      report::envelopeJson(*published.report, store.clock().now(), store.freshness().stale);
  return HttpResponse{200, "application/json", report::wrapEnvelope(envelope, payloads), {}};
}

// Wraps a handler that needs a published analysis; answers 503 until there is one.
template <typename Render>
Handler withAnalysis(const SnapshotStore& store, Render render) {
  return [&store, render](const HttpRequest& request) {
    const auto published = store.current();
    if (!published) {
      return jsonError(503, "no analysis yet");
    }
    return render(request, *published);
  };
}

Result<report::RecommendationFilter> parseFilter(const HttpRequest& request) {
  report::RecommendationFilter filter;
  filter.kind = request.param("kind");
  filter.namespace_ = request.param("namespace");
  filter.dag = request.param("dag");
  const std::string severity = request.param("severity");
  if (!severity.empty()) {
    filter.min_severity = report::parseSeverity(severity);
    if (!filter.min_severity) {
      return makeError("must be one of info, warning, critical, not \"" + severity + "\"",
                       "severity");
    }
  }
  return filter;
}

}  // namespace

void registerApiRoutes(HttpServer& server, const SnapshotStore& store) {
  server.route("GET", "/api/v1/recommendations",
               withAnalysis(store, [&store](const HttpRequest& request, const Published& p) {
                 const auto filter = parseFilter(request);
                 if (!filter) {
                   return jsonError(400, filter.error().describe());
                 }
                 const std::string body =
                     filter->empty()
                         ? p.recommendations
                         : report::dumpJson(report::recommendationsJson(*p.report, *filter));
                 return envelopeResponse(store, p, {{"recommendations", body}});
               }));
  server.route("GET", "/api/v1/findings",
               withAnalysis(store, [&store](const HttpRequest&, const Published& p) {
                 return envelopeResponse(store, p, {{"findings", p.findings}});
               }));
  server.route("GET", "/api/v1/dags",
               withAnalysis(store, [&store](const HttpRequest&, const Published& p) {
                 return envelopeResponse(store, p, {{"dags", p.dags}});
               }));
  server.route(
      "GET", "/api/v1/summary",
      withAnalysis(store, [&store](const HttpRequest&, const Published& p) {
        return envelopeResponse(store, p, {{"summary", p.summary}, {"detectors", p.detectors}});
      }));
}

}  // namespace dagadvisor::server
