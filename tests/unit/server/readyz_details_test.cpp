#include <catch2/catch.hpp>

#include "common/clock.h"
#include "server/health_handlers.h"
#include "server/http_server.h"
#include "server/snapshot_store.h"

namespace dagadvisor::server {
namespace {

HttpRequest readyz(std::string authorization = "") {
  HttpRequest request{"GET", "/readyz", {}, {}, ""};
  if (!authorization.empty()) {
    request.headers.emplace("authorization", std::move(authorization));
  }
  return request;
}

// The operator's credentials, which the details policy below allows.
constexpr const char* kOperator = "Basic b3BlcmF0b3I6cGFzcw==";

// A store and its health routes, details only for kOperator.
struct HealthWithDetails {
  ManualClock clock{1795824000};
  SnapshotStore store{clock, 300};
  HttpServer server{HttpServerOptions{}};
  HealthWithDetails() {
    registerHealthRoutes(server, store, [](const HttpRequest& request) {
      return request.header("authorization") == kOperator;
    });
  }
};

TEST_CASE("anonymous /readyz gets the short reason, an authenticated client the scrubbed detail",
          "[health]") {
  HealthWithDetails health;
  SnapshotStore& store = health.store;
  HttpServer& server = health.server;
  store.recordFailure(
      "prometheus http://10.1.2.3:9090: query pod_info: HTTP 502 (text/plain): upstream said "
      "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.secret");

  const HttpResponse anonymous = server.dispatch(readyz());
  CHECK(anonymous.status == 503);
  CHECK(anonymous.body == "no analysis yet: last cycle failed\n");

  const HttpResponse wrong = server.dispatch(readyz("Basic bm9ib2R5Om5vcGU="));
  CHECK(wrong.body == "no analysis yet: last cycle failed\n");

  const HttpResponse operator_view = server.dispatch(readyz(kOperator));
  CHECK(operator_view.status == 503);
  CHECK_THAT(operator_view.body, Catch::Contains("http://10.1.2.3:9090"));
  CHECK_THAT(operator_view.body, Catch::Contains("Authorization: Bearer <redacted>"));
  CHECK_THAT(operator_view.body, !Catch::Contains("eyJhbGciOiJIUzI1NiJ9"));
}

TEST_CASE("without a details policy /readyz keeps the full reason for everyone", "[health]") {
  ManualClock clock{1795824000};
  SnapshotStore store(clock, 300);
  HttpServer server(HttpServerOptions{});
  registerHealthRoutes(server, store);
  CHECK(server.dispatch(readyz()).body == "no analysis yet\n");
  store.recordFailure("prometheus http://10.1.2.3:9090: HTTP 502");
  CHECK(server.dispatch(readyz()).body ==
        "no analysis yet: last cycle failed: prometheus http://10.1.2.3:9090: HTTP 502\n");
}

TEST_CASE("/readyz says a reload was rejected, with the reason for those allowed details",
          "[health]") {
  HealthWithDetails health;
  SnapshotStore& store = health.store;
  HttpServer& server = health.server;
  store.recordReload(
      "invalid configuration:\n  sources.prometheus.bearer_token_file: cannot read /x: no such "
      "file");
  const std::string line = "last reload rejected, running the previous configuration";
  CHECK(server.dispatch(readyz()).body == "no analysis yet\n" + line + "\n");
  const HttpResponse operator_view = server.dispatch(readyz(kOperator));
  CHECK_THAT(operator_view.body, Catch::StartsWith("no analysis yet\n" + line + ": invalid"));
  CHECK_THAT(operator_view.body, Catch::Contains("sources.prometheus.bearer_token_file"));
  store.recordReload("");  // a later reload was taken
  CHECK(server.dispatch(readyz()).body == "no analysis yet\n");
}

}  // namespace
}  // namespace dagadvisor::server
