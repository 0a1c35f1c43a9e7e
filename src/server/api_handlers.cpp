#include "server/api_handlers.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "advice/kind_list.h"
#include "report/gantt_svg.h"
#include "report/graph_svg.h"
#include "report/prediction_json.h"
#include "report/report_dot.h"
#include "report/report_json.h"
#include "report/report_yaml.h"
#include "server/accept.h"
#include "server/shared_body.h"

namespace dagadvisor::server {
namespace {

using Payloads = std::vector<std::pair<std::string, std::string>>;

constexpr std::string_view kDagsPrefix = "/api/v1/dags/";
constexpr std::string_view kGanttSuffix = "/gantt.svg";
constexpr const char* kSvg = "image/svg+xml";

// YAML when the client names it with a quality above 0 and not below JSON's: a refusal
// ("application/yaml;q=0") or a preference for JSON keeps JSON, the default.
bool wantsYaml(const HttpRequest& request) {
  const std::string accept = request.header("accept");
  const double yaml = std::max(acceptQuality(accept, "application/yaml"),
                               acceptQuality(accept, "application/x-yaml"));
  return yaml > 0 && yaml >= acceptQuality(accept, "application/json");
}

// The envelope's clock, in whole seconds: responses built within one second are identical, so
// EnvelopeCache can serve one body to all of them.
UnixSeconds envelopeNow(const SnapshotStore& store) {
  return std::floor(store.clock().now());
}

HttpResponse envelopeResponse(const SnapshotStore& store, const Published& published,
                              const Payloads& payloads) {
  const auto envelope =
      report::envelopeJson(*published.report, envelopeNow(store), store.freshness().stale);
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

// The last body of one route: rebuilt when the analysis, its staleness or the envelope's second
// changes, so a route serialises at most once per second however many readers there are.
class EnvelopeCache {
 public:
  template <typename Build>
  std::shared_ptr<const SharedBody> get(const std::shared_ptr<const Published>& published,
                                        bool stale, UnixSeconds now, Build build) {
    std::lock_guard lock(mutex_);
    if (!body_ || published != published_ || stale != stale_ || now != now_) {
      body_ = std::make_shared<const SharedBody>(build());
      published_ = published;  // held, so a new analysis can never reuse its address
      stale_ = stale;
      now_ = now;
    }
    return body_;
  }

 private:
  std::mutex mutex_;
  std::shared_ptr<const SharedBody> body_;
  std::shared_ptr<const Published> published_;
  bool stale_ = false;
  UnixSeconds now_ = 0;
};

using PayloadMember = std::pair<const char*, std::string Published::*>;

// The envelope plus the cached payloads of Published, served from an EnvelopeCache, gzip when
// the client accepts it. `fallback` (optional) answers what the cache does not cover: requests
// with parameters (filters) or asking for YAML.
Handler cachedEnvelope(const SnapshotStore& store, std::vector<PayloadMember> members,
                       Handler fallback = {}) {
  auto cache = std::make_shared<EnvelopeCache>();
  return [&store, members = std::move(members), cache, fallback](const HttpRequest& request) {
    if (fallback && (!request.params.empty() || wantsYaml(request))) {
      return fallback(request);
    }
    const auto published = store.current();
    if (!published) {
      return jsonError(503, "no analysis yet");
    }
    const bool stale = store.freshness().stale;
    const UnixSeconds now = envelopeNow(store);
    auto body = cache->get(published, stale, now, [&] {
      Payloads payloads;
      for (const auto& [key, member] : members) {
        payloads.emplace_back(key, (*published).*member);
      }
      return report::wrapEnvelope(report::envelopeJson(*published->report, now, stale), payloads);
    });
    return sharedResponse(request, std::move(body), "application/json");
  };
}

std::string lowered(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

// An unknown kind is refused like an unknown severity: an empty list would read as "no such
// problem" where the client misspelt the kind. Both are matched without case.
std::optional<Error> unknownKind(const std::string& kind) {
  std::string known;
  for (const advice::KindSpec& spec : advice::kindList()) {
    if (spec.kind == kind) {
      return std::nullopt;
    }
    known += (known.empty() ? "" : ", ") + std::string(spec.kind);
  }
  return makeError("must be one of " + known + ", not \"" + kind + "\"", "kind");
}

Result<report::RecommendationFilter> parseFilter(const HttpRequest& request) {
  report::RecommendationFilter filter;
  filter.kind = lowered(request.param("kind"));
  filter.namespace_ = request.param("namespace");
  filter.dag = request.param("dag");
  if (!filter.kind.empty()) {
    if (auto unknown = unknownKind(filter.kind)) {
      return *std::move(unknown);
    }
  }
  const std::string severity = request.param("severity");
  if (!severity.empty()) {
    filter.min_severity = report::parseSeverity(lowered(severity));
    if (!filter.min_severity) {
      return makeError("must be one of info, warning, critical, not \"" + severity + "\"",
                       "severity");
    }
  }
  return filter;
}

HttpResponse recommendations(const SnapshotStore& store, const HttpRequest& request,
                             const Published& p) {
  const auto filter = parseFilter(request);
  if (!filter) {
    return jsonError(400, filter.error().describe());
  }
  if (wantsYaml(request)) {
    auto doc = report::envelopeJson(*p.report, store.clock().now(), store.freshness().stale);
    doc["recommendations"] = report::recommendationsJson(*p.report, *filter);
    doc["prediction"] = report::predictionSummaryJson(*p.report);
    return HttpResponse{200, "application/yaml", report::jsonToYaml(doc), {}};
  }
  const std::string body = filter->empty()
                               ? p.recommendations
                               : report::dumpJson(report::recommendationsJson(*p.report, *filter));
  return envelopeResponse(store, p, {{"recommendations", body}, {"prediction", p.prediction}});
}

HttpResponse svgOrError(const Result<std::string>& svg) {
  if (!svg) {
    return jsonError(500, svg.error().describe());
  }
  return HttpResponse{200, kSvg, *svg, {}};
}

// /api/v1/dags/{run}[/gantt.svg]; the run id itself contains slashes.
HttpResponse runRoute(const SnapshotStore& store, const HttpRequest& request, const Published& p) {
  std::string key = request.path.substr(kDagsPrefix.size());
  const bool gantt = key.ends_with(kGanttSuffix);
  if (gantt) {
    key.resize(key.size() - kGanttSuffix.size());
  }
  const report::RunSummary* run = report::findRun(*p.report, key);
  if (run == nullptr) {
    return jsonError(404, "no such run (or an ambiguous run name): " + key);
  }
  if (gantt) {
    return HttpResponse{
        200,
        kSvg,
        p.renders.get("gantt:" + run->id, [run] { return report::renderGanttSvg(*run); }),
        {}};
  }
  const std::string format = request.param("format").empty() ? "json" : request.param("format");
  if (format == "json") {
    const std::string detail = p.renders.get(
        "json:" + run->id, [run] { return report::dumpJson(report::runDetailJson(*run)); });
    return envelopeResponse(store, p, {{"dag", detail}});
  }
  if (format == "dot") {
    return HttpResponse{200, "text/vnd.graphviz; charset=utf-8", report::renderDot(*run), {}};
  }
  if (format == "svg") {
    // An empty cached value marks a failed rendering; the error is rendered again to report it.
    const std::string svg = p.renders.get("svg:" + run->id, [run] {
      const auto rendered = report::renderGraphSvg(report::renderDot(*run));
      return rendered ? *rendered : std::string();
    });
    return svg.empty() ? svgOrError(report::renderGraphSvg(report::renderDot(*run)))
                       : HttpResponse{200, kSvg, svg, {}};
  }
  return jsonError(400, "format: must be one of json, dot, svg, not \"" + format + "\"");
}

}  // namespace

void registerApiRoutes(HttpServer& server, const SnapshotStore& store) {
  Handler filtered_or_yaml =
      withAnalysis(store, [&store](const HttpRequest& request, const Published& p) {
        return recommendations(store, request, p);
      });
  server.route("GET", "/api/v1/recommendations",
               cachedEnvelope(store,
                              {{"recommendations", &Published::recommendations},
                               {"prediction", &Published::prediction}},
                              std::move(filtered_or_yaml)));
  server.route("GET", "/api/v1/findings",
               cachedEnvelope(store, {{"findings", &Published::findings}}));
  server.route("GET", "/api/v1/dags", cachedEnvelope(store, {{"dags", &Published::dags}}));
  server.route("GET", std::string(kDagsPrefix) + "*",
               withAnalysis(store, [&store](const HttpRequest& request, const Published& p) {
                 return runRoute(store, request, p);
               }));
  server.route("GET", "/api/v1/nodes", cachedEnvelope(store, {{"nodes", &Published::nodes}}));
  server.route("GET", "/api/v1/scheduling",
               cachedEnvelope(store, {{"scheduling", &Published::scheduling}}));
  server.route("GET", "/api/v1/summary",
               cachedEnvelope(store, {{"summary", &Published::summary},
                                      {"detectors", &Published::detectors}}));
}

}  // namespace dagadvisor::server
