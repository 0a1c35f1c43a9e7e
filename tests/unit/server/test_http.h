#pragma once

// A tiny libcurl client and the daemon's whole front end on a loopback port, shared by the
// server tests.

#include <curl/curl.h>
#include <prometheus/registry.h>

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <cctype>
#include <map>
#include <string>
#include <vector>

#include "exporter/metrics_handler.h"
#include "exporter/report_collector.h"
#include "exporter/self_metrics.h"
#include "server/api_handlers.h"
#include "server/health_handlers.h"
#include "server/http_server.h"
#include "server/snapshot_store.h"
#include "server/web_page.h"
#include "unit/report/sample_report.h"

namespace dagadvisor::testing {

struct Reply {
  long status = 0;
  std::string content_type;
  std::string body;
  std::string allow;
  std::map<std::string, std::string> headers;  // lower-cased names
};

inline std::size_t collectBody(char* data, std::size_t size, std::size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

inline std::size_t collectHeader(char* data, std::size_t size, std::size_t n, void* out) {
  const std::string line(data, size * n);
  const auto colon = line.find(':');
  if (colon != std::string::npos) {
    std::string name = line.substr(0, colon);
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    const auto value_start = line.find_first_not_of(' ', colon + 1);
    const auto value_end = line.find_first_of("\r\n", value_start);
    static_cast<Reply*>(out)->headers[name] = line.substr(value_start, value_end - value_start);
  }
  return size * n;
}

inline Reply request(int port, const std::string& method, const std::string& target,
                     const std::string& body = "", const std::vector<std::string>& headers = {}) {
  CURL* curl = curl_easy_init();
  REQUIRE(curl != nullptr);
  Reply reply;
  const std::string url = "http://127.0.0.1:" + std::to_string(port) + target;
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, method.c_str());
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, 10000L);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, collectBody);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &reply.body);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, collectHeader);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &reply);
  curl_slist* list = nullptr;
  for (const auto& h : headers) {
    list = curl_slist_append(list, h.c_str());
  }
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, list);
  if (!body.empty()) {
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.c_str());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE, static_cast<long>(body.size()));
  }
  const CURLcode rc = curl_easy_perform(curl);
  INFO(curl_easy_strerror(rc));
  REQUIRE(rc == CURLE_OK);
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &reply.status);
  char* type = nullptr;
  curl_easy_getinfo(curl, CURLINFO_CONTENT_TYPE, &type);
  reply.content_type = type ? type : "";
  curl_slist_free_all(list);
  curl_easy_cleanup(curl);
  reply.allow = reply.headers.count("allow") ? reply.headers["allow"] : "";
  return reply;
}

inline Reply get(int port, const std::string& target,
                 const std::vector<std::string>& headers = {}) {
  return request(port, "GET", target, "", headers);
}

// The whole daemon front end on a loopback port: API, health, metrics and the page over one store.
struct Daemon {
  ManualClock clock{kSampleDataTime};
  server::SnapshotStore store{clock, 300};
  std::shared_ptr<prometheus::Registry> registry = std::make_shared<prometheus::Registry>();
  exporter::SelfMetrics self{registry, "prod-eu", "test"};
  exporter::MetricsHandler metrics;
  server::HttpServer server{server::HttpServerOptions{"127.0.0.1:0", 2, 5000, 1024}};
  int port = 0;
  std::atomic<int> reloads{0};

  explicit Daemon(server::Gate gate = {}) {
    metrics.add(registry);
    metrics.add(std::make_shared<exporter::ReportCollector>([this] {
      const auto published = store.current();
      return std::vector<std::shared_ptr<const report::AnalysisReport>>{
          published ? published->report : nullptr};
    }));
    server::registerApiRoutes(server, store);
    server::registerHealthRoutes(server, store);
    server::registerMetricsRoute(server, metrics);
    server::registerWebPage(server);
    server::registerReloadRoute(server, [this] { ++reloads; });
    server.route(
        "POST", "/echo",
        [](const server::HttpRequest& r) {
          return server::HttpResponse{200, "text/plain", std::to_string(r.body.size()), {}};
        },
        /*accepts_body=*/true);
    if (gate) {
      server.setGate(std::move(gate));
    }
    const auto started = server.start();
    INFO((started ? "" : started.error().describe()));
    REQUIRE(started.ok());
    port = server.port();
    REQUIRE(port > 0);
  }
};

}  // namespace dagadvisor::testing
