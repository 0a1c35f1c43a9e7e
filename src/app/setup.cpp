#include "app/setup.h"

#include <chrono>
#include <variant>

#include "common/duration.h"
#include "common/log.h"
#include "config/config_loader.h"
#include "sources/prometheus/prometheus_source.h"
#include "sources/snapshot/snapshot_source.h"

namespace dagadvisor::app {
namespace {

// Command-line flags win over the file; their errors name the flag.
Result<void> applyOverrides(const CliOptions& cli, config::Config& config) {
  if (cli.prometheus_url) {
    config.sources.prometheus.url = *cli.prometheus_url;
    config.sources.snapshot_dir.clear();
  }
  if (cli.snapshot_dir) {
    config.sources.snapshot_dir = *cli.snapshot_dir;
  }
  if (cli.listen) {
    config.server.listen = *cli.listen;
  }
  if (cli.cluster) {
    config.analysis.cluster = *cli.cluster;
  }
  if (cli.log_level) {
    config.logging.level = *cli.log_level;
  }
  if (cli.log_format) {
    config.logging.format = *cli.log_format;
  }
  if (cli.interval) {
    auto interval = parseDuration(*cli.interval);
    if (!interval.ok()) {
      return makeError(interval.error().message, "--interval");
    }
    config.analysis.interval = std::chrono::duration_cast<config::Seconds>(*interval);
  }
  return {};
}

}  // namespace

Result<config::Config> loadEffectiveConfig(const CliOptions& cli) {
  config::Config config;
  if (!cli.config_path.empty()) {
    auto loaded = config::loadConfigFile(cli.config_path);
    if (auto* errors = std::get_if<config::ConfigErrors>(&loaded)) {
      return makeError(errors->describe(), cli.config_path);
    }
    config = std::get<config::Config>(std::move(loaded));
  }
  if (auto applied = applyOverrides(cli, config); !applied.ok()) {
    return applied.error();
  }
  const config::ConfigErrors errors = config::validate(config);
  if (!errors.errors.empty()) {
    return makeError(errors.describe(), cli.config_path.empty() ? "command line" : cli.config_path);
  }
  return config;
}

void configureLogging(const config::Config& config) {
  log::Level level = log::Level::kInfo;
  if (log::parseLevel(config.logging.level, level)) {
    log::setLevel(level);
  }
  log::setFormat(config.logging.format == "json" ? log::Format::kJson : log::Format::kLogfmt);
}

Result<SourceSetup> openSource(const config::Config& config) {
  if (!config.sources.snapshot_dir.empty()) {
    auto snapshot = sources::SnapshotSource::open(config.sources.snapshot_dir);
    if (!snapshot.ok()) {
      return snapshot.error();
    }
    const UnixSeconds at = (*snapshot)->analysisTime();
    return SourceSetup{std::move(snapshot).value(), at};
  }
  const config::PrometheusSource& prom = config.sources.prometheus;
  if (prom.url.empty()) {
    return makeError(
        "no data source: give --prometheus URL or --snapshot DIR (or set sources.prometheus.url "
        "or sources.snapshot_dir in the config)");
  }
  sources::PrometheusOptions options;
  options.url = prom.url;
  options.timeout = std::chrono::duration_cast<std::chrono::milliseconds>(prom.timeout);
  sources::HttpClientOptions& http = options.http;
  http.bearer_token_file = prom.bearer_token_file;
  http.headers = prom.headers;
  http.basic_auth_user = prom.basic_auth.username;
  http.basic_auth_password_file = prom.basic_auth.password_file;
  http.ca_file = prom.tls.ca_file;
  http.client_cert_file = prom.tls.cert_file;
  http.client_key_file = prom.tls.key_file;
  http.tls_verify = !prom.tls.insecure_skip_verify;
  http.sigv4_region = prom.sigv4.region;
  http.sigv4_service = prom.sigv4.service;
  auto source = sources::PrometheusSource::create(std::move(options));
  if (!source.ok()) {
    return source.error();
  }
  return SourceSetup{std::move(source).value(), std::nullopt};
}

Result<UnixSeconds> analysisTime(const CliOptions& cli, const SourceSetup& setup,
                                 const Clock& clock) {
  if (cli.at) {
    auto at = parseTimestamp(*cli.at);
    if (!at.ok()) {
      return makeError(at.error().message, "--at");
    }
    return *at;
  }
  return setup.recorded_at.value_or(clock.now());
}

}  // namespace dagadvisor::app
