#include "server/web_config.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "support/test_support.h"
#include "unit/server/test_http.h"

using dagadvisor::server::BasicAuth;
using dagadvisor::server::parseWebConfig;
using dagadvisor::testing::Daemon;
using dagadvisor::testing::get;
using nlohmann::json;

namespace {

// "alice:wonderland", "alice:wrong" and "bob:wonderland" in base64 (RFC 7617 examples style).
constexpr const char* kAliceGood = "Authorization: Basic YWxpY2U6d29uZGVybGFuZA==";
constexpr const char* kAliceBad = "Authorization: Basic YWxpY2U6d3Jvbmc=";
constexpr const char* kBob = "Authorization: Basic Ym9iOndvbmRlcmxhbmQ=";

std::shared_ptr<BasicAuth> fixtureAuth() {
  auto config =
      dagadvisor::server::loadWebConfig(dagadvisor::testing::fixturePath("server/web-config.yml"));
  REQUIRE(config.ok());
  return std::make_shared<BasicAuth>(*config);
}

}  // namespace

TEST_CASE("web config: users with bcrypt hashes; unknown keys and bad hashes refused") {
  const auto ok = parseWebConfig("basic_auth_users:\n  alice: $2y$10$abc\n");
  REQUIRE(ok.ok());
  CHECK(ok->basic_auth_users.at("alice") == "$2y$10$abc");
  CHECK(parseWebConfig("").ok());
  CHECK(parseWebConfig("basic_auth_user: {}\n").error().field == "basic_auth_user");
  CHECK(parseWebConfig("basic_auth_users:\n  bob: plaintext\n").error().field ==
        "basic_auth_users.bob");
  CHECK_FALSE(parseWebConfig("basic_auth_users: [\n").ok());
  // Found by the web_config fuzz target (seeds/web_config/empty-key.yml): an empty key's error
  // named no field.
  CHECK(parseWebConfig("\"\": x\n").error().field == "web_config");
  CHECK(parseWebConfig("! : x\n").error().field == "web_config");
  CHECK_FALSE(dagadvisor::server::loadWebConfig("/nonexistent/web.yml").ok());
}

TEST_CASE("bcrypt: the right password passes, a wrong one or an unknown user does not") {
  const auto auth = fixtureAuth();
  CHECK(auth->verify("alice", "wonderland"));
  CHECK(auth->verify("alice", "wonderland"));  // from the cache
  CHECK_FALSE(auth->verify("alice", "wonderlan"));
  CHECK_FALSE(auth->verify("bob", "wonderland"));
  CHECK_FALSE(auth->verify("", ""));
}

TEST_CASE("basic auth on the server: 401 without or with wrong credentials, probes open") {
  const auto auth = fixtureAuth();
  Daemon d([auth](const dagadvisor::server::HttpRequest& r) { return auth->check(r); });
  const auto none = get(d.port, "/metrics");
  CHECK(none.status == 401);
  CHECK(none.headers.at("www-authenticate") == "Basic realm=\"dagadvisor\"");
  CHECK(json::parse(none.body).at("error") == "authentication required");
  CHECK(get(d.port, "/api/v1/recommendations", {kAliceBad}).status == 401);
  CHECK(get(d.port, "/", {kBob}).status == 401);
  CHECK(get(d.port, "/", {"Authorization: Bearer abc"}).status == 401);
  CHECK(get(d.port, "/metrics", {kAliceGood}).status == 200);
  CHECK(get(d.port, "/", {kAliceGood}).status == 200);
  CHECK(get(d.port, "/healthz").status == 200);
  CHECK(get(d.port, "/readyz").status == 503);  // open, and not ready: nothing published
}
