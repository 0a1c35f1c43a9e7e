#include <curl/curl.h>
#include <prometheus/registry.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <nlohmann/json.hpp>

#include "exporter/metrics_handler.h"
#include "exporter/report_collector.h"
#include "exporter/self_metrics.h"
#include "server/api_handlers.h"
#include "server/health_handlers.h"
#include "server/http_server.h"
#include "unit/report/sample_report.h"
#include "unit/server/test_http.h"

using dagadvisor::ManualClock;
using dagadvisor::testing::Daemon;
using dagadvisor::testing::get;
using dagadvisor::testing::Reply;
using dagadvisor::testing::request;
using namespace dagadvisor::server;
using nlohmann::json;
namespace t = dagadvisor::testing;

TEST_CASE("before the first analysis: alive, not ready, API answers 503") {
  Daemon d;
  const Reply health = get(d.port, "/healthz");
  CHECK(health.status == 200);
  CHECK(health.body == "ok\n");
  const Reply ready = get(d.port, "/readyz");
  CHECK(ready.status == 503);
  CHECK(ready.body == "no analysis yet\n");
  for (const char* path :
       {"/api/v1/recommendations", "/api/v1/findings", "/api/v1/dags", "/api/v1/summary"}) {
    const Reply api = get(d.port, path);
    INFO(path);
    CHECK(api.status == 503);
    CHECK(api.content_type == "application/json");
    CHECK(json::parse(api.body) == json{{"error", "no analysis yet"}});
  }
  const Reply metrics = get(d.port, "/metrics");
  CHECK(metrics.status == 200);
  CHECK(metrics.content_type == "text/plain; version=0.0.4; charset=utf-8");
  CHECK(metrics.body.find("dagadvisor_build_info{cluster=\"prod-eu\",version=\"test\"} 1") !=
        std::string::npos);
}

TEST_CASE("unknown paths get 404 JSON, wrong methods 405 with Allow, big bodies 413") {
  Daemon d;
  const Reply missing = get(d.port, "/nope");
  CHECK(missing.status == 404);
  CHECK(json::parse(missing.body).at("error") == "no such path: /nope");
  const Reply invalid_utf8 = get(d.port, "/nope%FF");
  CHECK(invalid_utf8.status == 404);
  CHECK(json::parse(invalid_utf8.body).contains("error"));
  const Reply wrong = request(d.port, "POST", "/healthz", "x");
  CHECK(wrong.status == 405);
  CHECK(wrong.allow == "GET");
  CHECK(wrong.content_type == "application/json");
  CHECK(request(d.port, "POST", "/echo", std::string(1000, 'a')).body == "1000");
  CHECK(request(d.port, "POST", "/echo", std::string(5000, 'a')).status == 413);
}

TEST_CASE("after publish: ready, and every API route serves the envelope and payload") {
  Daemon d;
  d.clock.set(t::kSampleDataTime + 2);
  d.store.publish(t::sampleReport());
  d.clock.advance(10);
  CHECK(get(d.port, "/readyz").status == 200);

  const Reply recs = get(d.port, "/api/v1/recommendations");
  CHECK(recs.status == 200);
  CHECK(recs.content_type == "application/json");
  const json body = json::parse(recs.body);
  CHECK(body.at("cluster") == "prod-eu");
  CHECK(body.at("generated_at") == "2026-11-28T09:00:02Z");
  CHECK(body.at("data_age_seconds") == 12.0);
  CHECK(body.at("stale") == false);
  CHECK(body.at("warnings").size() == 1);
  CHECK(body.at("recommendations").size() == 3);

  const json warning = json::parse(get(d.port, "/api/v1/recommendations?severity=warning").body);
  CHECK(warning.at("recommendations").size() == 2);
  const json etl = json::parse(
      get(d.port, "/api/v1/recommendations?namespace=etl&kind=split-dependencies").body);
  REQUIRE(etl.at("recommendations").size() == 1);
  CHECK(etl.at("recommendations").at(0).at("id") == "split-dependencies-bb22");
  const json spaced = json::parse(get(d.port, "/api/v1/recommendations?dag=tr%61in").body);
  CHECK(spaced.at("recommendations").size() == 1);
  const Reply bad = get(d.port, "/api/v1/recommendations?severity=urgent");
  CHECK(bad.status == 400);
  CHECK(json::parse(bad.body).at("error").get<std::string>().find("severity") == 0);
  // An unknown kind is refused as an unknown severity is, not answered with an empty list; both
  // are matched without case.
  const Reply unknown_kind = get(d.port, "/api/v1/recommendations?kind=gpu-hogging");
  CHECK(unknown_kind.status == 400);
  CHECK(
      json::parse(unknown_kind.body).at("error").get<std::string>().find("kind: must be one of") ==
      0);
  CHECK(json::parse(get(d.port, "/api/v1/recommendations?severity=Warning").body)
            .at("recommendations")
            .size() == 2);
  CHECK(
      json::parse(get(d.port, "/api/v1/recommendations?namespace=etl&kind=Split-Dependencies").body)
          .at("recommendations")
          .size() == 1);

  CHECK(json::parse(get(d.port, "/api/v1/findings").body).at("findings").size() == 4);
  CHECK(json::parse(get(d.port, "/api/v1/dags").body).at("dags").size() == 3);
  const json summary = json::parse(get(d.port, "/api/v1/summary").body);
  CHECK(summary.at("summary").at("pending_pods") == 7);
  CHECK(summary.at("detectors").size() == 2);
  CHECK(summary.at("stale") == false);

  d.metrics.refresh();  // as the daemon's loop does after each cycle
  const Reply metrics = get(d.port, "/metrics");
  CHECK(metrics.body.find("dagadvisor_gpu_node_hoarded{cluster=\"prod-eu\",node=\"gpu-a\"} 1") !=
        std::string::npos);
}

TEST_CASE("a failed cycle or an old analysis makes readyz 503 and the API say stale") {
  Daemon d;
  d.clock.set(t::kSampleDataTime + 2);
  d.store.publish(t::sampleReport());
  CHECK(get(d.port, "/readyz").status == 200);

  d.store.recordFailure("prometheus: HTTP 502");
  const Reply failed = get(d.port, "/readyz");
  CHECK(failed.status == 503);
  CHECK(failed.body == "last cycle failed: prometheus: HTTP 502\n");
  const Reply served = get(d.port, "/api/v1/findings");
  CHECK(served.status == 200);                          // the last good analysis is still served…
  CHECK(json::parse(served.body).at("stale") == true);  // …marked stale

  d.store.publish(t::sampleReport());
  CHECK(get(d.port, "/readyz").status == 200);
  d.clock.advance(412);
  const Reply old = get(d.port, "/readyz");
  CHECK(old.status == 503);
  CHECK(old.body == "analysis is 412s old (stale_after 300s)\n");
  CHECK(json::parse(get(d.port, "/api/v1/dags").body).at("stale") == true);
}

TEST_CASE("stop returns promptly and a busy port is reported") {
  Daemon d;
  HttpServer second{HttpServerOptions{"127.0.0.1:" + std::to_string(d.port), 1, 1000, 1024}};
  const auto clash = second.start();
  REQUIRE_FALSE(clash.ok());
  CHECK(clash.error().message.find("cannot listen on 127.0.0.1:" + std::to_string(d.port)) == 0);

  CHECK(get(d.port, "/healthz").status == 200);  // a served request used to cost a 2 s stop
  const auto begin = std::chrono::steady_clock::now();
  d.server.stop();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  CHECK(seconds < 1.0);
  CHECK(d.server.port() == 0);
  d.server.stop();  // twice is harmless
}

TEST_CASE("route table: exact and prefix paths, HEAD on GET routes, throwing handlers") {
  HttpServer server{HttpServerOptions{}};
  server.route("GET", "/api/v1/dags/*", [](const HttpRequest& r) {
    return HttpResponse{200, "text/plain", r.path, {}};
  });
  server.route("GET", "/boom",
               [](const HttpRequest&) -> HttpResponse { throw std::runtime_error("kaput"); });
  server.route("PUT", "/boom", [](const HttpRequest&) { return HttpResponse{}; });
  const auto call = [&](const std::string& method, const std::string& path) {
    return server.dispatch(HttpRequest{method, path, {}, {}, ""});
  };
  CHECK(call("GET", "/api/v1/dags/etl/daily/r1").body == "/api/v1/dags/etl/daily/r1");
  CHECK(call("HEAD", "/api/v1/dags/x").status == 200);
  CHECK(call("GET", "/api/v1/dags").status == 404);
  const HttpResponse boom = call("GET", "/boom");
  CHECK(boom.status == 500);
  CHECK(json::parse(boom.body).at("error") == "internal error: kaput");
  const HttpResponse wrong = call("POST", "/boom");
  CHECK(wrong.status == 405);
  REQUIRE(wrong.headers.size() == 1);
  CHECK(wrong.headers[0].second == "GET, PUT");
  CHECK(server.port() == 0);  // never started
}
