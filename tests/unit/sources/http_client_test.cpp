#include "sources/http_client.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>

#include "loopback_server.h"
#include "sources/prometheus/prometheus_source.h"
#include "temp_dir.h"

namespace dagadvisor::sources {
namespace {

using namespace std::chrono_literals;
using testing::Gate;
using testing::LoopbackServer;
using testing::Reply;
using testing::SeenRequest;

Reply jsonReply(std::string body) {
  return Reply{200, "application/json", std::move(body), {}};
}

void writeToken(const std::string& path, const std::string& token,
                std::filesystem::file_time_type mtime) {
  std::ofstream(path, std::ios::trunc) << token;
  std::filesystem::last_write_time(path, mtime);  // explicit: mtime granularity can be coarse
}

TEST_CASE("redactUrl drops userinfo and keeps the rest", "[http]") {
  CHECK(redactUrl("https://admin:s3cret@prom.example:9090/api?x=1") ==
        "https://prom.example:9090/api?x=1");
  CHECK(redactUrl("http://token@host/path") == "http://host/path");
  CHECK(redactUrl("http://host:9090/a@b") == "http://host:9090/a@b");  // '@' after the host
  CHECK(redactUrl("http://host:9090") == "http://host:9090");
  CHECK(redactUrl("not a url") == "not a url");
}

TEST_CASE("GET escapes query parameters and returns status, body and content type", "[http]") {
  auto& server = LoopbackServer::instance();
  server.route("/http/get",
               [](const SeenRequest&, std::size_t) { return jsonReply(R"({"a":1})"); });
  HttpClient client({});
  auto response =
      client.get(server.url("/http/get"), {{"query", R"(up{job="a b"})"}, {"time", "1.5"}});
  REQUIRE(response.ok());
  CHECK(response->status == 200);
  CHECK(response->body == R"({"a":1})");
  CHECK(response->content_type == "application/json");
  CHECK(response->body.capacity() >= response->body.size() + kBodyPadding);

  const auto seen = server.seen("/http/get");
  REQUIRE(seen.size() == 1);
  CHECK(seen[0].method == "GET");
  CHECK(seen[0].query == "query=up%7Bjob%3D%22a%20b%22%7D&time=1.5");
  CHECK_THAT(seen[0].header("Accept-Encoding"), Catch::Contains("gzip"));
}

TEST_CASE("without accept_compressed no Accept-Encoding is sent, and the body comes plain",
          "[http]") {
  auto& server = LoopbackServer::instance();
  server.route("/http/plain",
               [](const SeenRequest&, std::size_t) { return jsonReply(R"({"plain":true})"); });
  HttpClientOptions options;
  options.accept_compressed = false;
  HttpClient client(options);
  auto response = client.get(server.url("/http/plain"), {});
  REQUIRE(response.ok());
  CHECK(response->body == R"({"plain":true})");
  const auto seen = server.seen("/http/plain");
  REQUIRE(seen.size() == 1);
  CHECK(seen[0].header("Accept-Encoding").empty());
}

TEST_CASE("POST sends a form with escaped values and the configured headers", "[http]") {
  auto& server = LoopbackServer::instance();
  server.route("/http/post", [](const SeenRequest&, std::size_t) { return jsonReply("{}"); });
  HttpClient client(HttpClientOptions{.headers = {{"X-Scope-OrgID", "tenant-1"}}});
  auto response = client.post(server.url("/http/post"),
                              {{"query", "sum(rate(x[5m])) > 0 & y"}, {"time", "1795856400.000"}});
  REQUIRE(response.ok());
  const auto seen = server.seen("/http/post");
  REQUIRE(seen.size() == 1);
  CHECK(seen[0].method == "POST");
  CHECK(seen[0].header("Content-Type") == "application/x-www-form-urlencoded");
  CHECK(seen[0].body ==
        "query=sum%28rate%28x%5B5m%5D%29%29%20%3E%200%20%26%20y&time=1795856400.000");
  CHECK(seen[0].header("X-Scope-OrgID") == "tenant-1");
  CHECK(seen[0].header("Authorization").empty());
}

TEST_CASE("POST of JSON sends the body as is, typed application/json", "[http]") {
  auto& server = LoopbackServer::instance();
  server.route("/http/post-json", [](const SeenRequest&, std::size_t) {
    return Reply{201, "application/json", R"({"access_token":"t"})", {}};
  });
  HttpClient client({});
  const std::string body = R"({"username":"u","password":"p \"q\" & r"})";
  auto response = client.postJson(server.url("/http/post-json"), body);
  REQUIRE(response.ok());
  CHECK(response->status == 201);
  const auto seen = server.seen("/http/post-json");
  REQUIRE(seen.size() == 1);
  CHECK(seen[0].method == "POST");
  CHECK(seen[0].header("Content-Type") == "application/json");
  CHECK(seen[0].body == body);
  CHECK(seen[0].header("Authorization").empty());
}

TEST_CASE("an in-memory bearer token replaces basic auth, and a 401 is left to the caller",
          "[http]") {
  testing::TempDir dir;
  std::ofstream(dir / "password") << "hunter2";
  auto& server = LoopbackServer::instance();
  server.route("/http/session", [](const SeenRequest&, std::size_t) {
    return Reply{401, "application/json", R"({"detail":"expired"})", {}};
  });
  HttpClient client(
      HttpClientOptions{.basic_auth_user = "u", .basic_auth_password_file = dir / "password"});
  client.setBearerToken("jwt-1");
  auto refused = client.get(server.url("/http/session"), {});
  REQUIRE(refused.ok());
  CHECK(refused->status == 401);
  client.setBearerToken("");  // cleared: basic auth again, and the 401 re-read of its file
  REQUIRE(client.get(server.url("/http/session"), {}).ok());
  const auto seen = server.seen("/http/session");
  REQUIRE(seen.size() == 3);  // no retry of the token's 401; the password's 401 is tried twice
  CHECK(seen[0].header("Authorization") == "Bearer jwt-1");
  CHECK_THAT(seen[1].header("Authorization"), Catch::StartsWith("Basic "));
}

TEST_CASE("any HTTP status is a response, not an Error", "[http]") {
  auto& server = LoopbackServer::instance();
  server.route("/http/teapot", [](const SeenRequest&, std::size_t) {
    return Reply{418, "text/plain", "short and stout", {{"Retry-After", "7"}}};
  });
  HttpClient client({});
  auto response = client.get(server.url("/http/teapot"), {});
  REQUIRE(response.ok());
  CHECK(response->status == 418);
  CHECK(response->body == "short and stout");
  CHECK(response->retry_after == "7");
}

TEST_CASE("the bearer token is sent and re-read when its file changes", "[http]") {
  auto& server = LoopbackServer::instance();
  server.route("/http/token", [](const SeenRequest&, std::size_t) { return jsonReply("{}"); });
  testing::TempDir dir;
  const std::string token_file = dir / "token";
  const auto t0 = std::filesystem::file_time_type::clock::now();
  writeToken(token_file, "first-token\n", t0);
  HttpClient client(HttpClientOptions{.bearer_token_file = token_file});

  REQUIRE(client.get(server.url("/http/token"), {}).ok());
  writeToken(token_file, "second-token", t0 + 10s);
  REQUIRE(client.get(server.url("/http/token"), {}).ok());

  const auto seen = server.seen("/http/token");
  REQUIRE(seen.size() == 2);
  CHECK(seen[0].header("Authorization") == "Bearer first-token");
  CHECK(seen[1].header("Authorization") == "Bearer second-token");
}

TEST_CASE("an unreadable token file fails without sending and without leaking", "[http]") {
  auto& server = LoopbackServer::instance();
  server.route("/http/notoken", [](const SeenRequest&, std::size_t) { return jsonReply("{}"); });
  testing::TempDir dir;
  HttpClient client(HttpClientOptions{.bearer_token_file = dir / "missing"});
  auto response = client.get(server.url("/http/notoken"), {});
  REQUIRE_FALSE(response.ok());
  CHECK_THAT(response.error().message, Catch::Contains(dir / "missing"));
  CHECK_THAT(response.error().message,
             Catch::Contains("bearer_token_file: cannot read secret file " + (dir / "missing") +
                             ": No such file or directory"));
  CHECK_FALSE(client.lastErrorRetryable());
  CHECK(server.seen("/http/notoken").empty());
}

TEST_CASE("a body above the size limit is an Error, with or without Content-Length", "[http]") {
  auto& server = LoopbackServer::instance();
  const bool send_length = GENERATE(true, false);
  server.route("/http/big", [send_length](const SeenRequest&, std::size_t) {
    Reply reply = jsonReply(std::string(200000, 'x'));
    reply.send_length = send_length;
    return reply;
  });
  HttpClient client(HttpClientOptions{.max_response_bytes = 1000});
  auto response = client.get(server.url("/http/big"), {});
  REQUIRE_FALSE(response.ok());
  CHECK_THAT(response.error().message, Catch::Contains("exceeds 1000 bytes"));
  CHECK_THAT(response.error().message, Catch::Contains(server.url("/http/big")));
  CHECK_FALSE(client.lastErrorRetryable());
}

TEST_CASE("a body without Content-Length is read to the end and padded", "[http]") {
  auto& server = LoopbackServer::instance();
  const std::string body(100000, 'y');
  server.route("/http/unsized", [body](const SeenRequest&, std::size_t) {
    Reply reply = jsonReply(body);
    reply.send_length = false;
    return reply;
  });
  HttpClient client({});
  auto response = client.get(server.url("/http/unsized"), {});
  REQUIRE(response.ok());
  CHECK(response->body == body);
  CHECK(response->body.capacity() >= body.size() + kBodyPadding);
}

TEST_CASE("a body the process cannot allocate is an Error, its budget share given back", "[http]") {
  auto& server = LoopbackServer::instance();
  server.route("/http/exabyte", [](const SeenRequest&, std::size_t) {
    // More than the first page holds, so that the body grows to the announced length: a lie no
    // system can map.
    Reply reply = jsonReply(std::string(20'000, ' ') + "{}");
    reply.send_length = false;
    reply.headers.emplace_back("Content-Length", std::to_string(std::size_t{1} << 60));
    return reply;
  });
  auto budget = std::make_shared<ByteBudget>(std::size_t{1} << 62);
  HttpClient client(
      HttpClientOptions{.max_response_bytes = std::size_t{1} << 62, .budget = budget});
  auto response = client.get(server.url("/http/exabyte"), {});
  REQUIRE_FALSE(response.ok());
  CHECK_THAT(response.error().message, Catch::Contains("out of memory receiving the answer"));
  CHECK(budget->used() == 0);
}

TEST_CASE("connection refused names the URL without credentials and is retryable", "[http]") {
  HttpClient client({});
  // Port 1 (tcpmux) needs root to listen on and is closed on test machines.
  auto response = client.get("http://user:hunter2@127.0.0.1:1/api/v1/query", {{"query", "up"}});
  REQUIRE_FALSE(response.ok());
  const std::string& message = response.error().message;
  CHECK_THAT(message, Catch::Contains("http://127.0.0.1:1/api/v1/query"));
  CHECK_THAT(message, Catch::Contains("Couldn't connect"));
  CHECK_THAT(message, !Catch::Contains("hunter2"));
  CHECK_THAT(message, !Catch::Contains("query=up"));
  CHECK(client.lastErrorRetryable());
}

TEST_CASE("a slow server hits the per-call timeout", "[http]") {
  auto& server = LoopbackServer::instance();
  auto gate = std::make_shared<Gate>();
  server.route("/http/slow", [gate](const SeenRequest&, std::size_t) {
    gate->waitAtMost(5s);
    return jsonReply("{}");
  });
  HttpClient client(HttpClientOptions{.timeout = 10s});
  const auto start = std::chrono::steady_clock::now();
  auto response = client.get(server.url("/http/slow"), {}, 200ms);
  const auto elapsed = std::chrono::steady_clock::now() - start;
  gate->open();
  REQUIRE_FALSE(response.ok());
  CHECK_THAT(response.error().message, Catch::Contains("Timeout"));
  CHECK(client.lastErrorRetryable());
  CHECK(elapsed < 3s);  // the override, not the 10 s default, applied
}

TEST_CASE("a cancellation aborts a transfer in flight at once, not at its timeout", "[http]") {
  auto& server = LoopbackServer::instance();
  auto gate = std::make_shared<Gate>();
  server.route("/http/hung", [gate](const SeenRequest&, std::size_t) {
    gate->waitAtMost(10s);
    return jsonReply("{}");
  });
  auto cancel = std::make_shared<Cancellation>();
  HttpClient client(HttpClientOptions{.timeout = 30s});
  client.setCancellation(cancel);
  std::thread stopper([cancel] {
    std::this_thread::sleep_for(200ms);
    cancel->cancel("the daemon is stopping");
  });
  const auto start = std::chrono::steady_clock::now();
  auto response = client.get(server.url("/http/hung"), {});
  const auto elapsed = std::chrono::steady_clock::now() - start;
  stopper.join();
  gate->open();
  REQUIRE_FALSE(response.ok());
  CHECK_THAT(response.error().message, Catch::Contains("cancelled: the daemon is stopping"));
  CHECK_FALSE(client.lastErrorRetryable());
  CHECK(elapsed < 2s);  // 200 ms + one poll, far from the 30 s timeout
  // A stopped cancellation refuses the next call before it is sent.
  const std::size_t seen = server.seen("/http/hung").size();
  CHECK_FALSE(client.get(server.url("/http/hung"), {}).ok());
  CHECK(server.seen("/http/hung").size() == seen);
}

TEST_CASE("a cancellation's deadline caps the call's timeout", "[http]") {
  auto& server = LoopbackServer::instance();
  auto gate = std::make_shared<Gate>();
  server.route("/http/deadline", [gate](const SeenRequest&, std::size_t) {
    gate->waitAtMost(10s);
    return jsonReply("{}");
  });
  HttpClient client(HttpClientOptions{.timeout = 30s});
  client.setCancellation(
      std::make_shared<Cancellation>(nullptr, std::chrono::steady_clock::now() + 300ms));
  const auto start = std::chrono::steady_clock::now();
  auto response = client.get(server.url("/http/deadline"), {});
  const auto elapsed = std::chrono::steady_clock::now() - start;
  gate->open();
  REQUIRE_FALSE(response.ok());
  CHECK(elapsed < 3s);
}

TEST_CASE("a body grows in place: the budget holds its capacity, never a copy", "[http]") {
  auto& server = LoopbackServer::instance();
  const bool send_length = GENERATE(true, false);
  const std::string big(600'000, 'x');
  server.route("/http/growth", [&big, send_length](const SeenRequest&, std::size_t) {
    Reply reply = jsonReply(big);
    reply.send_length = send_length;
    return reply;
  });
  auto budget = std::make_shared<ByteBudget>(std::size_t{4} << 20);
  HttpClient client(HttpClientOptions{.budget = budget});
  auto held = client.get(server.url("/http/growth"), {});
  REQUIRE(held.ok());
  CHECK(held->body == big);
  const std::size_t capacity = held->body.capacity();
  CHECK(budget->used() == capacity);
  CHECK(budget->peak() == capacity);  // no moment held an old and a new buffer
  if (send_length) {  // one step from the padding-only buffer to the announced length
    CHECK(capacity == BodyBuffer::roundedCapacity(big.size() + kBodyPadding));
  } else {  // steps of a sixteenth
    CHECK(capacity <= big.size() + big.size() / 16 + BodyBuffer::roundedCapacity(1));
  }
}

// Issue 55's case: a doubling buffer held 256 MiB for each body, and 128 MiB more while it copied
// itself, so the second body was refused.
TEST_CASE("two bodies of 200 MiB without a length fit the default budget together", "[http]") {
  auto& server = LoopbackServer::instance();
  const std::string big(std::size_t{200} << 20, 'x');
  server.route("/http/two-large", [&big](const SeenRequest&, std::size_t) {
    Reply reply = jsonReply(big);
    reply.send_length = false;
    return reply;
  });
  auto budget = std::make_shared<ByteBudget>(PrometheusOptions{}.response_budget_bytes);
  REQUIRE(budget->limit() == std::size_t{512} << 20);
  HttpClient first(HttpClientOptions{.budget = budget});
  HttpClient second(HttpClientOptions{.budget = budget});
  auto one = first.get(server.url("/http/two-large"), {});
  REQUIRE(one.ok());
  auto two = second.get(server.url("/http/two-large"), {});  // while the first is held
  REQUIRE(two.ok());
  CHECK(one->body.size() == big.size());
  CHECK(two->body == big);
  CHECK(budget->used() == one->body.capacity() + two->body.capacity());
  CHECK(budget->peak() == budget->used());
}

TEST_CASE("a body takes exactly its Content-Length, and concurrent bodies share one budget",
          "[http]") {
  auto& server = LoopbackServer::instance();
  const std::string big(600'000, 'x');
  server.route("/http/budget", [&big](const SeenRequest&, std::size_t) { return jsonReply(big); });
  auto budget = std::make_shared<ByteBudget>(1'000'000);
  HttpClient first(HttpClientOptions{.budget = budget});
  HttpClient second(HttpClientOptions{.budget = budget});

  auto held = first.get(server.url("/http/budget"), {});
  REQUIRE(held.ok());
  CHECK(held->body.size() == big.size());
  // No growth past the length.
  CHECK(held->body.capacity() == BodyBuffer::roundedCapacity(big.size() + kBodyPadding));
  CHECK(budget->used() == held->body.capacity());

  // The first body is still held: a second one would take the two past the budget.
  auto refused = second.get(server.url("/http/budget"), {});
  REQUIRE_FALSE(refused.ok());
  CHECK_THAT(refused.error().message, Catch::Contains("exceed the memory budget of 1000000 bytes"));
  CHECK_FALSE(second.lastErrorRetryable());
  CHECK(budget->used() == held->body.capacity());  // the refused one gave its share back

  held = Result<HttpResponse>(makeError("dropped"));  // the body is gone: its share returns
  CHECK(budget->used() == 0);
  auto accepted = second.get(server.url("/http/budget"), {});
  REQUIRE(accepted.ok());
  CHECK(accepted->body == big);
}

TEST_CASE("one client serves many requests on its reused handle", "[http]") {
  auto& server = LoopbackServer::instance();
  server.route("/http/many", [](const SeenRequest&, std::size_t index) {
    return jsonReply(std::to_string(index));
  });
  HttpClient client({});
  for (int i = 0; i < 5; ++i) {
    auto response = client.get(server.url("/http/many"), {});
    REQUIRE(response.ok());
    CHECK(response->body == std::to_string(i));
  }
}

}  // namespace
}  // namespace dagadvisor::sources

namespace dagadvisor::sources {
namespace {

TEST_CASE("basic auth sends the password file's content and never names it in errors", "[http]") {
  auto& server = LoopbackServer::instance();
  server.route("/http/basic", [](const SeenRequest&, std::size_t) { return jsonReply("{}"); });
  testing::TempDir dir;
  const std::string password_file = dir / "password";
  std::ofstream(password_file) << "open sesame\n";
  HttpClient client(
      HttpClientOptions{.basic_auth_user = "alice", .basic_auth_password_file = password_file});
  REQUIRE(client.get(server.url("/http/basic"), {}).ok());
  const auto seen = server.seen("/http/basic");
  REQUIRE(seen.size() == 1);
  CHECK(seen[0].header("Authorization") == "Basic YWxpY2U6b3BlbiBzZXNhbWU=");  // alice:open sesame

  std::filesystem::remove(password_file);
  HttpClient broken(
      HttpClientOptions{.basic_auth_user = "alice", .basic_auth_password_file = password_file});
  auto failed = broken.get(server.url("/http/basic"), {});
  REQUIRE_FALSE(failed.ok());
  CHECK_THAT(failed.error().message, Catch::Contains("password"));
  CHECK_THAT(failed.error().message, !Catch::Contains("sesame"));
}

TEST_CASE("a 401 makes the client read a rotated token again, once", "[http]") {
  auto& server = LoopbackServer::instance();
  server.route("/http/rotated", [](const SeenRequest& request, std::size_t) {
    return request.header("Authorization") == "Bearer new-token"
               ? jsonReply("{}")
               : Reply{401, "text/plain", "unauthorized", {}};
  });
  testing::TempDir dir;
  const std::string token_file = dir / "token";
  const auto t0 = std::filesystem::file_time_type::clock::now() - 1h;
  writeToken(token_file, "old-token", t0);
  HttpClient client(HttpClientOptions{.bearer_token_file = token_file});
  auto first = client.get(server.url("/http/rotated"), {});
  REQUIRE(first.ok());
  CHECK(first->status == 401);  // retried once with the same (unchanged) file, still refused
  // Same mtime as before: only the 401 can make the client notice the new token.
  writeToken(token_file, "new-token", t0);
  auto second = client.get(server.url("/http/rotated"), {});
  REQUIRE(second.ok());
  CHECK(second->status == 200);
  const auto seen = server.seen("/http/rotated");
  REQUIRE(seen.size() == 4);
  CHECK(seen[2].header("Authorization") == "Bearer old-token");
  CHECK(seen[3].header("Authorization") == "Bearer new-token");
}

TEST_CASE("SigV4 signs with the environment's credentials for the configured region", "[http]") {
  auto& server = LoopbackServer::instance();
  server.route("/http/sigv4", [](const SeenRequest&, std::size_t) { return jsonReply("{}"); });
  ::setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE", 1);
  ::setenv("AWS_SECRET_ACCESS_KEY", "wJalrXUtnFEMI", 1);
  ::setenv("AWS_SESSION_TOKEN", "session-1", 1);
  HttpClient client(HttpClientOptions{.sigv4_region = "eu-west-1", .sigv4_service = "aps"});
  auto response = client.post(server.url("/http/sigv4"), {{"query", "up"}});
  ::unsetenv("AWS_ACCESS_KEY_ID");
  ::unsetenv("AWS_SECRET_ACCESS_KEY");
  ::unsetenv("AWS_SESSION_TOKEN");
  REQUIRE(response.ok());
  const auto seen = server.seen("/http/sigv4");
  REQUIRE(seen.size() == 1);
  const std::string auth = seen[0].header("Authorization");
  CHECK_THAT(auth, Catch::StartsWith("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/"));
  CHECK_THAT(auth, Catch::Contains("/eu-west-1/aps/aws4_request"));
  CHECK_THAT(auth, !Catch::Contains("wJalrXUtnFEMI"));
  CHECK(seen[0].header("x-amz-security-token") == "session-1");
  CHECK_FALSE(seen[0].header("x-amz-date").empty());

  HttpClient unconfigured(HttpClientOptions{.sigv4_region = "eu-west-1"});
  auto refused = unconfigured.get(server.url("/http/sigv4"), {});
  REQUIRE_FALSE(refused.ok());
  CHECK_THAT(refused.error().message, Catch::Contains("AWS_ACCESS_KEY_ID"));
}

}  // namespace
}  // namespace dagadvisor::sources
