#include <catch2/catch.hpp>

#include "advice/kind_list.h"
#include "config/config_loader.h"
#include "unit/config/error_fields.h"

namespace dagadvisor::config {
namespace {

TEST_CASE("sources.airflow loads every setting", "[config][airflow]") {
  const auto loaded = loadConfigText(R"(
sources:
  airflow:
    enabled: true
    url: https://airflow.example:8080/prefix
    api_version: v2
    timeout: 10s
    bearer_token_file: /var/run/airflow/jwt
    basic_auth: {username: viewer, password_file: /etc/airflow/password}
    tls: {ca_file: /etc/ca.pem, insecure_skip_verify: true}
    max_dags_per_cycle: 7
)",
                                     advice::defaultConfig());
  REQUIRE(std::holds_alternative<Config>(loaded));
  const AirflowSource& airflow = std::get<Config>(loaded).sources.airflow;
  CHECK(airflow.enabled);
  CHECK(airflow.url == "https://airflow.example:8080/prefix");
  CHECK(airflow.api_version == "v2");
  CHECK(airflow.timeout == Seconds(10));
  CHECK(airflow.bearer_token_file == "/var/run/airflow/jwt");
  CHECK(airflow.basic_auth.username == "viewer");
  CHECK(airflow.basic_auth.password_file == "/etc/airflow/password");
  CHECK(airflow.tls.ca_file == "/etc/ca.pem");
  CHECK(airflow.tls.insecure_skip_verify);
  CHECK(airflow.max_dags_per_cycle == 7);
  CHECK_FALSE(AirflowSource{}.enabled);  // off unless asked for
}

TEST_CASE("sources.airflow errors name the field", "[config][airflow]") {
  CHECK(errorFields("sources: {airflow: {enabled: true}}") ==
        std::vector<std::string>{"sources.airflow.url"});
  CHECK(errorFields("sources: {airflow: {api_version: v3}}") ==
        std::vector<std::string>{"sources.airflow.api_version"});
  CHECK(errorFields("sources: {airflow: {url: 'ftp://x', timeout: 0s, max_dags_per_cycle: -1}}") ==
        std::vector<std::string>{"sources.airflow.url", "sources.airflow.timeout",
                                 "sources.airflow.max_dags_per_cycle"});
  // Disabled, an empty URL is fine.
  CHECK(errorFields("sources: {airflow: {enabled: false}}").empty());
}

}  // namespace
}  // namespace dagadvisor::config
