#include "sources/prometheus/prometheus_source.h"

#include <catch2/catch.hpp>
#include <memory>
#include <string>

#include "loopback_server.h"
#include "sources/prometheus/response_parser.h"
#include "support/test_support.h"

namespace dagadvisor::sources {
namespace {

using namespace std::chrono_literals;
using testing::Gate;
using testing::LoopbackServer;
using testing::Reply;
using testing::SeenRequest;

constexpr UnixSeconds kAt = 1795856400.5;
const Query kQuery{"pod_info", "kube_pod_info"};

/// A source for `base` (a path on the loopback server) with fast retries for tests.
std::unique_ptr<PrometheusSource> sourceFor(const std::string& base,
                                            std::chrono::milliseconds timeout = 5s) {
  PrometheusOptions options;
  options.url = LoopbackServer::instance().url(base);
  options.timeout = timeout;
  options.retry_backoff = 10ms;
  auto source = PrometheusSource::create(options);
  REQUIRE(source.ok());
  return std::move(source).value();
}

/// Replies with `first` to the first `times` requests of a route, then with the vector fixture.
testing::Route failing(Reply first, std::size_t times) {
  return [first, times, body = testing::prometheusFixture("vector_labels.json")](
             const SeenRequest&, std::size_t index) {
    return index < times ? first : Reply{200, "application/json", body, {}};
  };
}

TEST_CASE("a 200 response is returned verbatim and counted", "[prometheus]") {
  auto& server = LoopbackServer::instance();
  const std::string body = testing::prometheusFixture("vector_labels.json");
  server.route("/prom/ok/api/v1/query", failing({}, 0));
  auto source = sourceFor("/prom/ok/");  // a trailing slash is tolerated

  auto result = source->instantQuery(kQuery, kAt);
  REQUIRE(result.ok());
  CHECK(result->json == body);
  std::size_t samples = 0;
  REQUIRE(decodeInstantVector(result->json, [&](const SampleView&) { ++samples; }).ok());
  CHECK(samples == 3);

  const auto seen = server.seen("/prom/ok/api/v1/query");
  REQUIRE(seen.size() == 1);
  CHECK(seen[0].method == "POST");
  CHECK(seen[0].body == "query=kube_pod_info&time=1795856400.500&stats=all");
  CHECK(source->queryCount() == 1);
  CHECK(source->requestCount() == 1);
  CHECK(source->failedQueryCount() == 0);
  CHECK(source->bytesReceived() == body.size());
}

TEST_CASE("a 400/422 Prometheus error is reported once, without retrying", "[prometheus]") {
  auto& server = LoopbackServer::instance();
  for (int status : {400, 422}) {
    const std::string path = "/prom/bad" + std::to_string(status);
    server.route(
        path + "/api/v1/query",
        failing(
            Reply{
                status, "application/json", testing::prometheusFixture("error_bad_data.json"), {}},
            99));
    auto source = sourceFor(path);
    auto result = source->instantQuery(kQuery, kAt);
    REQUIRE_FALSE(result.ok());
    CHECK(result.error().message ==
          "prometheus " + server.url(path) +
              ": query pod_info: bad_data: invalid parameter \"query\": 1:5: parse error: "
              "unexpected end of input (HTTP " +
              std::to_string(status) + ")");
    CHECK(server.seen(path + "/api/v1/query").size() == 1);
    CHECK(source->failedQueryCount() == 1);
  }
}

TEST_CASE("a 503 with a text body is retried, then succeeds", "[prometheus]") {
  auto& server = LoopbackServer::instance();
  server.route("/prom/flaky/api/v1/query",
               failing(Reply{503, "text/plain", "Service Unavailable", {}}, 1));
  auto source = sourceFor("/prom/flaky");
  auto result = source->instantQuery(kQuery, kAt);
  REQUIRE(result.ok());
  CHECK(server.seen("/prom/flaky/api/v1/query").size() == 2);
  CHECK(source->requestCount() == 2);
  CHECK(source->queryCount() == 1);
}

TEST_CASE("retries are bounded and the last error is reported", "[prometheus]") {
  auto& server = LoopbackServer::instance();
  server.route("/prom/down/api/v1/query", failing(Reply{502, "text/plain", "Bad Gateway", {}}, 99));
  auto source = sourceFor("/prom/down");
  auto result = source->instantQuery(kQuery, kAt);
  REQUIRE_FALSE(result.ok());
  CHECK_THAT(result.error().message, Catch::Contains("HTTP 502"));
  CHECK_THAT(result.error().message, Catch::Contains("Bad Gateway"));
  CHECK_THAT(result.error().message, Catch::Contains("after 3 attempts"));
  CHECK(server.seen("/prom/down/api/v1/query").size() == 3);  // 1 + max_retries (2)
}

TEST_CASE("429 honours Retry-After: 0 and retries", "[prometheus]") {
  auto& server = LoopbackServer::instance();
  server.route("/prom/throttle/api/v1/query",
               failing(Reply{429, "text/plain", "slow down", {{"Retry-After", "0"}}}, 1));
  auto source = sourceFor("/prom/throttle");
  REQUIRE(source->instantQuery(kQuery, kAt).ok());
  CHECK(server.seen("/prom/throttle/api/v1/query").size() == 2);
}

TEST_CASE("a huge Retry-After is capped", "[prometheus]") {
  auto& server = LoopbackServer::instance();
  server.route("/prom/throttle_long/api/v1/query",
               failing(Reply{429, "text/plain", "slow down", {{"Retry-After", "3600"}}}, 1));
  PrometheusOptions options;
  options.url = server.url("/prom/throttle_long");
  options.max_retry_after = 20ms;
  auto source = PrometheusSource::create(options);
  REQUIRE(source.ok());
  const auto start = std::chrono::steady_clock::now();
  REQUIRE((*source)->instantQuery(kQuery, kAt).ok());
  CHECK(std::chrono::steady_clock::now() - start < 3s);
  CHECK(server.seen("/prom/throttle_long/api/v1/query").size() == 2);
}

TEST_CASE("a slow server fails the query within its timeout", "[prometheus]") {
  auto& server = LoopbackServer::instance();
  auto gate = std::make_shared<Gate>();
  server.route("/prom/slow/api/v1/query", [gate](const SeenRequest&, std::size_t) {
    gate->waitAtMost(5s);
    return Reply{200, "application/json", "{}", {}};
  });
  auto source = sourceFor("/prom/slow", 300ms);
  const auto start = std::chrono::steady_clock::now();
  auto result = source->instantQuery(kQuery, kAt);
  const auto elapsed = std::chrono::steady_clock::now() - start;
  gate->open();
  REQUIRE_FALSE(result.ok());
  CHECK_THAT(result.error().message, Catch::Contains("Timeout"));
  CHECK_THAT(result.error().message, Catch::StartsWith("prometheus " + server.url("/prom/slow")));
  CHECK(elapsed < 3s);  // retries never extend past the query timeout
}

TEST_CASE("a non-JSON 404 names URL, status and the start of the body", "[prometheus]") {
  auto& server = LoopbackServer::instance();
  const std::string page = "<html>\n<head><title>404 Not Found</title></head>\n<body>" +
                           std::string(5000, 'z') + "</body></html>";
  server.route("/prom/html/api/v1/query", failing(Reply{404, "text/html", page, {}}, 99));
  auto source = sourceFor("/prom/html");
  auto result = source->instantQuery(kQuery, kAt);
  REQUIRE_FALSE(result.ok());
  const std::string& message = result.error().message;
  CHECK_THAT(message, Catch::StartsWith("prometheus " + server.url("/prom/html") +
                                        ": query pod_info: HTTP 404 (text/html): "));
  CHECK_THAT(message, Catch::Contains("<html> <head><title>404 Not Found</title></head> <body>"));
  CHECK(message.size() < 400);  // only the start of the page
  CHECK(server.seen("/prom/html/api/v1/query").size() == 1);
}

TEST_CASE("a 200 that is not JSON names URL, status, content type and body start", "[prometheus]") {
  auto& server = LoopbackServer::instance();
  server.route(
      "/prom/login/api/v1/query",
      failing(Reply{200, "text/html", "<html><body>Sign in to the proxy</body></html>", {}}, 99));
  auto source = sourceFor("/prom/login");
  auto result = source->instantQuery(kQuery, kAt);
  REQUIRE_FALSE(result.ok());
  CHECK(result.error().message ==
        "prometheus " + server.url("/prom/login") +
            ": query pod_info: HTTP 200 (text/html) from "
            "POST " +
            server.url("/prom/login/api/v1/query") +
            " is not JSON: <html><body>Sign in to the proxy</body></html>");
  CHECK(server.seen("/prom/login/api/v1/query").size() == 1);  // not retried
}

TEST_CASE("bodies held by the caller count against the source's budget until destroyed",
          "[prometheus]") {
  auto& server = LoopbackServer::instance();
  const std::string body = R"({"status":"success","data":{"resultType":"vector","result":[]}})";
  server.route("/prom/budget/api/v1/query", failing(Reply{200, "application/json", body, {}}, 99));
  PrometheusOptions options;
  options.url = server.url("/prom/budget");
  // Room for one body: a page, which holds it and its padding.
  options.response_budget_bytes = BodyBuffer::roundedCapacity(body.size() + kBodyPadding) + 10;
  auto source = PrometheusSource::create(options);
  REQUIRE(source.ok());
  auto first = (*source)->instantQuery(kQuery, kAt);
  REQUIRE(first.ok());
  auto second = (*source)->instantQuery(kQuery, kAt);
  REQUIRE_FALSE(second.ok());
  CHECK_THAT(second.error().message,
             Catch::StartsWith("prometheus " + server.url("/prom/budget") + ": query pod_info: "));
  CHECK_THAT(second.error().message, Catch::Contains("memory budget"));
  first = Result<QueryBody>(makeError("decoded and dropped"));
  CHECK((*source)->instantQuery(kQuery, kAt).ok());
}

TEST_CASE("a refused connection is retried, then reported", "[prometheus]") {
  PrometheusOptions options;
  options.url = "http://127.0.0.1:1";
  options.retry_backoff = 1ms;
  auto source = PrometheusSource::create(options);
  REQUIRE(source.ok());
  auto result = (*source)->instantQuery(kQuery, kAt);
  REQUIRE_FALSE(result.ok());
  CHECK_THAT(result.error().message,
             Catch::StartsWith("prometheus http://127.0.0.1:1: query pod_info: "));
  CHECK((*source)->requestCount() == 3);
}

TEST_CASE("describe() never shows credentials", "[prometheus]") {
  PrometheusOptions options;
  options.url = "https://admin:hunter2@prom.example:9090/prometheus/";
  auto source = PrometheusSource::create(options);
  REQUIRE(source.ok());
  CHECK((*source)->describe() == "prometheus https://prom.example:9090/prometheus");
}

TEST_CASE("create() refuses URLs that are not http(s) with a host", "[prometheus]") {
  for (const char* url : {"", "localhost:9090", "ftp://prom:21", "http://", "http://h/?q=1"}) {
    INFO(url);
    PrometheusOptions options;
    options.url = url;
    auto source = PrometheusSource::create(options);
    REQUIRE_FALSE(source.ok());
    CHECK(source.error().field == "url");
  }
}

}  // namespace
}  // namespace dagadvisor::sources
