#include <catch2/catch.hpp>

#include "advice/kind_list.h"
#include "config/config_loader.h"
#include "unit/config/error_fields.h"

namespace dagadvisor::config {
TEST_CASE("sources.scrape loads every setting", "[config][scrape]") {
  const auto loaded = loadConfigText(R"(
sources:
  scrape:
    targets: [http://ksm:8080/metrics, /var/lib/ksm.om]
    timeout: 3s
    lookback: 2h
    bearer_token_file: /var/run/token
    basic_auth: {username: u, password_file: /etc/p}
    tls: {ca_file: /etc/ca.pem, cert_file: /etc/c.pem, key_file: /etc/k.pem, insecure_skip_verify: true}
)",
                                     advice::defaultConfig());
  REQUIRE(std::holds_alternative<Config>(loaded));
  const ScrapeSource& scrape = std::get<Config>(loaded).sources.scrape;
  CHECK(scrape.targets == std::vector<std::string>{"http://ksm:8080/metrics", "/var/lib/ksm.om"});
  CHECK(scrape.timeout == Seconds(3));
  CHECK(scrape.lookback == Seconds(7200));
  CHECK(scrape.bearer_token_file == "/var/run/token");
  CHECK(scrape.basic_auth.username == "u");
  CHECK(scrape.basic_auth.password_file == "/etc/p");
  CHECK(scrape.tls.ca_file == "/etc/ca.pem");
  CHECK(scrape.tls.cert_file == "/etc/c.pem");
  CHECK(scrape.tls.key_file == "/etc/k.pem");
  CHECK(scrape.tls.insecure_skip_verify);
  CHECK(ScrapeSource{}.targets.empty());  // off unless asked for
}

TEST_CASE("sources.scrape errors name the field", "[config][scrape]") {
  const std::vector<std::string> targets{"sources.scrape.targets"};
  CHECK(errorFields("sources: {scrape: {targets: [http://ksm:8080/metrics]}}").empty());
  CHECK(errorFields("sources: {scrape: {targets: ['http://']}}") == targets);
  CHECK(errorFields("sources: {scrape: {targets: ['https://ksm/metrics?x=1']}}") == targets);
  CHECK(errorFields("sources: {scrape: {targets: ['']}}") == targets);
  CHECK(errorFields("sources: {scrape: {timeout: 0s}}") ==
        std::vector<std::string>{"sources.scrape.timeout"});
  CHECK(errorFields("sources: {scrape: {lookback: -1s}}") ==
        std::vector<std::string>{"sources.scrape.lookback"});
}

TEST_CASE("a direct scrape is the only data source", "[config][scrape]") {
  const std::vector<std::string> targets{"sources.scrape.targets"};
  CHECK(errorFields(R"(
sources:
  prometheus: {url: http://prometheus:9090}
  scrape: {targets: [http://ksm:8080/metrics]}
)") == targets);
  CHECK(errorFields(R"(
sources:
  snapshot_dir: /tmp/snap
  scrape: {targets: [/tmp/ksm.prom]}
)") == targets);
}

TEST_CASE("object files stand in for the Kubernetes API, never beside it or a snapshot",
          "[config][kubernetes]") {
  const auto loaded =
      loadConfigText("sources: {kubernetes: {object_files: [/tmp/runs.json, /tmp/classes.json]}}",
                     advice::defaultConfig());
  REQUIRE(std::holds_alternative<Config>(loaded));
  CHECK(std::get<Config>(loaded).sources.kubernetes.object_files ==
        std::vector<std::string>{"/tmp/runs.json", "/tmp/classes.json"});
  const std::vector<std::string> files{"sources.kubernetes.object_files"};
  CHECK(errorFields("sources: {kubernetes: {enabled: true, object_files: [/tmp/a.json]}}") ==
        files);
  CHECK(errorFields("sources: {snapshot_dir: /tmp/snap, kubernetes: {object_files: [/a.json]}}") ==
        files);
  CHECK(errorFields("sources: {kubernetes: {object_files: ['']}}") == files);
  CHECK(errorFields("sources: {kubernetes: {object_files: 3}}") == files);
}
}  // namespace dagadvisor::config
