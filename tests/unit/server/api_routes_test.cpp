#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "common/gzip.h"
#include "unit/server/test_http.h"

using dagadvisor::testing::Daemon;
using dagadvisor::testing::get;
using dagadvisor::testing::Reply;
using dagadvisor::testing::request;
using nlohmann::json;
namespace t = dagadvisor::testing;

namespace {

// A daemon with the sample report published and 10 s passed since its data time + 2 s.
struct Published : Daemon {
  Published() {
    clock.set(t::kSampleDataTime + 2);
    store.publish(t::sampleReport());
    clock.advance(10);
  }
};

void checkEnvelope(const json& body) {
  CHECK(body.at("cluster") == "prod-eu");
  CHECK(body.at("generated_at") == "2026-11-28T09:00:02Z");
  CHECK(body.at("data_age_seconds") == 12.0);  // now − data_time, as the metric
  CHECK(body.at("stale") == false);
  CHECK(body.at("warnings") == json::array({"partial data: 3 pods without labels"}));
}

}  // namespace

TEST_CASE("nodes and scheduling routes serve the envelope and their payload") {
  Published d;
  const Reply nodes = get(d.port, "/api/v1/nodes");
  CHECK(nodes.status == 200);
  CHECK(nodes.content_type == "application/json");
  const json n = json::parse(nodes.body);
  checkEnvelope(n);
  REQUIRE(n.at("nodes").size() == 2);
  CHECK(n.at("nodes")[0].at("stranded_resource") == "memory");

  const json s = json::parse(get(d.port, "/api/v1/scheduling").body);
  checkEnvelope(s);
  CHECK(s.at("scheduling").at("latency")[0].at("p95_seconds") == 0.5);
}

TEST_CASE("one run as JSON, DOT and SVG; its Gantt chart") {
  Published d;
  const Reply detail = get(d.port, "/api/v1/dags/etl/daily/r1");
  CHECK(detail.status == 200);
  const json body = json::parse(detail.body);
  checkEnvelope(body);
  CHECK(body.at("dag").at("id") == "etl/daily/r1");
  CHECK(body.at("dag").at("tasks_detail").size() == 4);
  CHECK(json::parse(get(d.port, "/api/v1/dags/r2?format=json").body).at("dag").at("id") ==
        "etl/daily/r2");

  const Reply dot = get(d.port, "/api/v1/dags/etl/daily/r1?format=dot");
  CHECK(dot.status == 200);
  CHECK(dot.content_type == "text/vnd.graphviz; charset=utf-8");
  CHECK(dot.body.rfind("digraph \"etl/daily/r1\"", 0) == 0);

  const Reply svg = get(d.port, "/api/v1/dags/etl%2Fdaily%2Fr1?format=svg");
  CHECK(svg.status == 200);
  CHECK(svg.content_type == "image/svg+xml");
  CHECK(svg.body.find("<svg") != std::string::npos);
  CHECK(svg.body.find(">extract</text>") != std::string::npos);
  CHECK(get(d.port, "/api/v1/dags/etl/daily/r1?format=svg").body == svg.body);  // cached

  const Reply gantt = get(d.port, "/api/v1/dags/etl/daily/r1/gantt.svg");
  CHECK(gantt.status == 200);
  CHECK(gantt.content_type == "image/svg+xml");
  CHECK(gantt.body.find("class=\"idle\"") != std::string::npos);
}

TEST_CASE("bad run requests: unknown run 404, bad format 400, all as JSON errors") {
  Published d;
  const Reply missing = get(d.port, "/api/v1/dags/etl/daily/r9");
  CHECK(missing.status == 404);
  CHECK(missing.content_type == "application/json");
  CHECK(json::parse(missing.body).at("error").get<std::string>().find("etl/daily/r9") !=
        std::string::npos);
  CHECK(get(d.port, "/api/v1/dags/etl/daily/r9/gantt.svg").status == 404);
  const Reply format = get(d.port, "/api/v1/dags/etl/daily/r1?format=png");
  CHECK(format.status == 400);
  CHECK(json::parse(format.body).at("error").get<std::string>().find("format") == 0);
}

TEST_CASE("an encoded NUL or a malformed escape in the path is a 400, never a shorter path") {
  Published d;
  for (const char* path : {"/api/v1/dags/r2%00junk", "/api/v1/dags/etl%2Fdaily%2Fr1%00",
                           "/api/v1/dags/r2%zz", "/api/v1/dags/r2%"}) {
    INFO(path);
    const Reply reply = get(d.port, path);
    CHECK(reply.status == 400);
    CHECK_THAT(json::parse(reply.body).at("error").get<std::string>(),
               Catch::Contains("malformed path"));
  }
  CHECK(get(d.port, "/api/v1/dags/r%32").status == 200);  // a well-formed escape decodes
}

TEST_CASE("recommendations as YAML when the Accept header asks for it") {
  Published d;
  const Reply yaml =
      get(d.port, "/api/v1/recommendations?severity=critical", {"Accept: application/yaml"});
  CHECK(yaml.status == 200);
  CHECK(yaml.content_type == "application/yaml");
  CHECK(yaml.body.find("generated_at: ") != std::string::npos);
  CHECK(yaml.body.find("data_age_seconds: 12") != std::string::npos);
  CHECK(yaml.body.find("stale: false") != std::string::npos);
  CHECK(yaml.body.find("id: gpu-node-hoarding-3f9a1c2b") != std::string::npos);
  CHECK(yaml.body.find("dag-stacking-aa11") == std::string::npos);  // filtered out (warning)
  CHECK(get(d.port, "/api/v1/recommendations", {"Accept: application/json"}).content_type ==
        "application/json");
  // A refusal, or a preference for JSON, keeps JSON.
  for (const char* accept : {"Accept: application/yaml;q=0", "Accept: application/yaml; q=0.0",
                             "Accept: application/yaml;q=0.5, application/json"}) {
    INFO(accept);
    CHECK(get(d.port, "/api/v1/recommendations", {accept}).content_type == "application/json");
  }
  CHECK(get(d.port, "/api/v1/recommendations", {"Accept: application/json;q=0.5, application/yaml"})
            .content_type == "application/yaml");
}

TEST_CASE("every route refuses a request body, and other methods get 405") {
  Published d;
  for (const char* path : {"/api/v1/recommendations", "/api/v1/nodes", "/api/v1/dags/r2",
                           "/metrics", "/healthz", "/"}) {
    INFO(path);
    const Reply with_body = request(d.port, "GET", path, "{\"x\":1}");
    CHECK(with_body.status == 413);
    CHECK(json::parse(with_body.body).contains("error"));
    const Reply put = request(d.port, "PUT", path);
    CHECK(put.status == 405);
    CHECK(put.allow == "GET");
  }
  const Reply del = request(d.port, "DELETE", "/api/v1/scheduling");
  CHECK(del.status == 405);
  CHECK(get(d.port, "/api/v1/nodesx").status == 404);
}

TEST_CASE("the web page is served at / as self-contained HTML") {
  Daemon d;
  const Reply page = get(d.port, "/");
  CHECK(page.status == 200);
  CHECK(page.content_type == "text/html; charset=utf-8");
  CHECK(page.body.rfind("<!doctype html>", 0) == 0);
  CHECK(page.body.find("/api/v1/recommendations") != std::string::npos);
  // No outside network: every URL the page names is our own.
  CHECK(page.body.find("http://") == std::string::npos);
  CHECK(page.body.find("https://") == std::string::npos);
}

TEST_CASE("before the first analysis the new routes answer 503 JSON") {
  Daemon d;
  for (const char* path :
       {"/api/v1/nodes", "/api/v1/scheduling", "/api/v1/dags/r1", "/api/v1/dags/r1/gantt.svg"}) {
    INFO(path);
    const Reply reply = get(d.port, path);
    CHECK(reply.status == 503);
    CHECK(json::parse(reply.body) == json{{"error", "no analysis yet"}});
  }
}

TEST_CASE("POST /-/reload signals the loop and answers 202; GET is 405") {
  Daemon d;
  const Reply reload = request(d.port, "POST", "/-/reload");
  CHECK(reload.status == 202);
  CHECK(json::parse(reload.body).at("status") == "reload requested");
  CHECK(d.reloads.load() == 1);
  CHECK(get(d.port, "/-/reload").status == 405);
  CHECK(request(d.port, "POST", "/-/reload", "x").status == 413);
  CHECK(d.reloads.load() == 1);
}

TEST_CASE("cached routes follow the clock, staleness and new analyses; gzip when accepted") {
  Published d;
  const json first = json::parse(get(d.port, "/api/v1/recommendations").body);
  CHECK(first.at("data_age_seconds") == 12.0);
  d.clock.advance(1);  // a new second: the cached body is rebuilt
  CHECK(json::parse(get(d.port, "/api/v1/recommendations").body).at("data_age_seconds") == 13.0);
  d.clock.advance(400);  // past stale_after (300 s)
  CHECK(json::parse(get(d.port, "/api/v1/findings").body).at("stale") == true);

  auto fewer = std::make_shared<dagadvisor::report::AnalysisReport>(*t::sampleReport());
  fewer->recommendations.pop_back();
  fewer->generated_at = d.clock.now();  // a fresh analysis
  d.store.publish(fewer);
  const json next = json::parse(get(d.port, "/api/v1/recommendations").body);
  CHECK(next.at("recommendations").size() == first.at("recommendations").size() - 1);
  CHECK(next.at("stale") == false);

  const Reply plain = get(d.port, "/api/v1/recommendations");
  const Reply zipped = get(d.port, "/api/v1/recommendations", {"Accept-Encoding: gzip"});
  CHECK(plain.headers.count("content-encoding") == 0);
  CHECK(plain.headers.at("vary") == "Accept-Encoding");
  REQUIRE(zipped.headers.count("content-encoding") == 1);
  CHECK(zipped.headers.at("content-encoding") == "gzip");
  CHECK(zipped.body.size() < plain.body.size());
  const auto unzipped = dagadvisor::gzipDecompress(zipped.body, 1 << 24);
  REQUIRE(unzipped.ok());
  CHECK(*unzipped == plain.body);

  d.metrics.refresh();
  const Reply metrics = get(d.port, "/metrics", {"Accept-Encoding: gzip, deflate"});
  CHECK(metrics.headers.at("content-encoding") == "gzip");
  const auto text = dagadvisor::gzipDecompress(metrics.body, 1 << 24);
  REQUIRE(text.ok());
  CHECK(*text == get(d.port, "/metrics").body);
  CHECK(get(d.port, "/metrics", {"Accept-Encoding: gzip;q=0"}).headers.count("content-encoding") ==
        0);
}
