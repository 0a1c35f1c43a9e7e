#include "server/tls.h"

#include <curl/curl.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "server/http_server.h"
#include "server/web_config.h"
#include "support/test_support.h"

using dagadvisor::server::HttpRequest;
using dagadvisor::server::HttpResponse;
using dagadvisor::server::HttpServer;
using dagadvisor::server::HttpServerOptions;
using dagadvisor::server::parseWebConfig;
using dagadvisor::server::TlsSettings;
using dagadvisor::server::validateTls;
using dagadvisor::testing::fixturePath;

namespace {

std::string tlsFixture(const std::string& name) {
  return fixturePath("tls/" + name);
}

TlsSettings serverTls() {
  TlsSettings tls;
  tls.cert_file = tlsFixture("server.pem");
  tls.key_file = tlsFixture("server.key");
  return tls;
}

struct Client {
  std::string scheme = "https";
  std::string ca_file = tlsFixture("ca.pem");
  std::string cert_file;
  std::string key_file;
  long max_tls = 0;  // CURL_SSLVERSION_MAX_* or 0
};

struct Outcome {
  CURLcode code = CURLE_OK;
  long status = 0;
  std::string body;
};

std::size_t appendBody(char* data, std::size_t size, std::size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

Outcome fetch(int port, const Client& client) {
  CURL* curl = curl_easy_init();
  REQUIRE(curl != nullptr);
  Outcome out;
  const std::string url = client.scheme + "://127.0.0.1:" + std::to_string(port) + "/ping";
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, 5000L);
  curl_easy_setopt(curl, CURLOPT_CAINFO, client.ca_file.c_str());
  if (!client.cert_file.empty()) {
    curl_easy_setopt(curl, CURLOPT_SSLCERT, client.cert_file.c_str());
    curl_easy_setopt(curl, CURLOPT_SSLKEY, client.key_file.c_str());
  }
  if (client.max_tls != 0) {
    curl_easy_setopt(curl, CURLOPT_SSLVERSION, CURL_SSLVERSION_TLSv1_2 | client.max_tls);
  }
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, appendBody);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &out.body);
  out.code = curl_easy_perform(curl);
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &out.status);
  curl_easy_cleanup(curl);
  return out;
}

// An HTTPS server on a free loopback port answering GET /ping.
struct TlsServer {
  explicit TlsServer(TlsSettings tls) {
    HttpServerOptions options;
    options.listen = "127.0.0.1:0";
    options.threads = 2;
    options.tls = std::move(tls);
    server = std::make_unique<HttpServer>(std::move(options));
    server->route("GET", "/ping", [](const HttpRequest&) {
      return HttpResponse{200, "text/plain", "pong\n", {}};
    });
    const auto started = server->start();
    INFO((started.ok() ? std::string() : started.error().describe()));
    REQUIRE(started.ok());
  }
  int port() const { return server->port(); }
  std::unique_ptr<HttpServer> server;
};

}  // namespace

TEST_CASE("TLS settings: files and values are checked, the error names the key") {
  CHECK(validateTls(serverTls()).ok());

  TlsSettings missing = serverTls();
  missing.cert_file.clear();
  CHECK(validateTls(missing).error().field == "tls_server_config.cert_file");

  TlsSettings unreadable = serverTls();
  unreadable.cert_file = "/nonexistent/server.pem";
  CHECK(validateTls(unreadable).error().field == "tls_server_config.cert_file");

  TlsSettings mismatched = serverTls();
  mismatched.key_file = tlsFixture("client.key");
  const auto mismatch = validateTls(mismatched);
  REQUIRE_FALSE(mismatch.ok());
  CHECK(mismatch.error().field == "tls_server_config.key_file");

  TlsSettings old_version = serverTls();
  old_version.min_version = "TLS11";
  CHECK(validateTls(old_version).error().field == "tls_server_config.min_version");

  TlsSettings no_ca = serverTls();
  no_ca.client_auth_type = "RequireAndVerifyClientCert";
  CHECK(validateTls(no_ca).error().field == "tls_server_config.client_ca_file");

  TlsSettings typo = serverTls();
  typo.client_auth_type = "RequireClientCert";
  CHECK(validateTls(typo).error().field == "tls_server_config.client_auth_type");
}

TEST_CASE("web config: tls_server_config read; unsupported TLS keys refused by name") {
  const auto web = parseWebConfig(
      "tls_server_config:\n  cert_file: a.pem\n  key_file: a.key\n  min_version: TLS13\n");
  REQUIRE(web.ok());
  REQUIRE(web->tls.has_value());
  CHECK(web->tls->cert_file == "a.pem");
  CHECK(web->tls->min_version == "TLS13");
  CHECK(web->basic_auth_users.empty());
  CHECK(parseWebConfig("tls_server_config:\n  cipher_suites: [x]\n").error().field ==
        "tls_server_config.cipher_suites");
  CHECK(parseWebConfig("tls_server_config: yes\n").error().field == "tls_server_config");
}

TEST_CASE("web config file: relative TLS paths are relative to the file; bad files refused") {
  const auto dir =
      std::filesystem::temp_directory_path() / ("dagadvisor-tls-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::filesystem::copy_file(tlsFixture("server.pem"), dir / "server.pem",
                             std::filesystem::copy_options::overwrite_existing);
  std::filesystem::copy_file(tlsFixture("server.key"), dir / "server.key",
                             std::filesystem::copy_options::overwrite_existing);
  std::ofstream(dir / "web.yml") << "tls_server_config:\n  cert_file: server.pem\n"
                                 << "  key_file: server.key\n";
  const auto web = dagadvisor::server::loadWebConfig((dir / "web.yml").string());
  INFO((web.ok() ? std::string() : web.error().describe()));
  REQUIRE(web.ok());
  CHECK(web->tls->cert_file == (dir / "server.pem").string());

  std::ofstream(dir / "bad.yml") << "tls_server_config:\n  cert_file: server.pem\n"
                                 << "  key_file: missing.key\n";
  const auto bad = dagadvisor::server::loadWebConfig((dir / "bad.yml").string());
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().field == "server.web_config_file");
  CHECK(bad.error().message.find("tls_server_config.key_file") != std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("HTTPS: verified clients get answers, many handshakes in a row, plain HTTP does not") {
  TlsServer server(serverTls());
  for (int i = 0; i < 20; ++i) {  // Debian's civetweb died at the first handshake without the fix
    const Outcome ok = fetch(server.port(), Client{});
    INFO(curl_easy_strerror(ok.code));
    REQUIRE(ok.code == CURLE_OK);
    CHECK(ok.status == 200);
    CHECK(ok.body == "pong\n");
  }
  Client plain;
  plain.scheme = "http";
  CHECK(fetch(server.port(), plain).status != 200);

  Client wrong_ca;
  wrong_ca.ca_file = tlsFixture("other-ca.pem");
  CHECK(fetch(server.port(), wrong_ca).code == CURLE_PEER_FAILED_VERIFICATION);
  CHECK(fetch(server.port(), Client{}).status == 200);  // still serving
}

TEST_CASE("HTTPS: min_version TLS13 refuses a TLS 1.2 client") {
  TlsSettings tls = serverTls();
  tls.min_version = "TLS13";
  TlsServer server(tls);
  Client tls12;
  tls12.max_tls = CURL_SSLVERSION_MAX_TLSv1_2;
  CHECK(fetch(server.port(), tls12).code != CURLE_OK);
  CHECK(fetch(server.port(), Client{}).status == 200);
}

TEST_CASE("HTTPS: RequireAndVerifyClientCert refuses clients without a certificate of the CA") {
  TlsSettings tls = serverTls();
  tls.client_auth_type = "RequireAndVerifyClientCert";
  tls.client_ca_file = tlsFixture("ca.pem");
  TlsServer server(tls);
  CHECK(fetch(server.port(), Client{}).status != 200);

  Client with_cert;
  with_cert.cert_file = tlsFixture("client.pem");
  with_cert.key_file = tlsFixture("client.key");
  const Outcome ok = fetch(server.port(), with_cert);
  INFO(curl_easy_strerror(ok.code));
  CHECK(ok.status == 200);
}

TEST_CASE("HTTPS: a certificate that civetweb cannot use fails start() with the reason") {
  // validateTls would refuse this pair at config time; start() must still say why, not only
  // civetweb's "null context".
  TlsSettings tls = serverTls();
  tls.key_file = tlsFixture("client.key");
  HttpServerOptions options;
  options.listen = "127.0.0.1:0";
  options.tls = std::move(tls);
  HttpServer server(std::move(options));
  const auto started = server.start();
  REQUIRE_FALSE(started.ok());
  CHECK_THAT(started.error().describe(), Catch::Contains("TLS setup failed"));
  CHECK_THAT(started.error().describe(), Catch::Contains("client.key"));
}
