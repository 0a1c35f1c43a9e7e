#include "app/setup.h"

#include <chrono>
#include <cstdlib>
#include <variant>

#include "advice/kind_list.h"
#include "common/duration.h"
#include "common/log.h"
#include "config/config_loader.h"
#include "ingestion/airflow_api_objects.h"
#include "ingestion/kubernetes_objects.h"
#include "ingestion/promql_reader.h"
#include "ingestion/scrape_reader.h"
#include "model/adapters/adapter_registry.h"
#include "sources/kubernetes/kube_object_files.h"
#include "sources/kubernetes/kubernetes_source.h"
#include "sources/prometheus/prometheus_source.h"
#include "sources/snapshot/snapshot_source.h"

namespace dagadvisor::app {
namespace {

// Command-line flags win over the file; their errors name the flag.
Result<void> applyOverrides(const CliOptions& cli, config::Config& config) {
  if (cli.prometheus_url) {
    config.sources.prometheus.url = *cli.prometheus_url;
    config.sources.snapshot_dir.clear();
    config.sources.scrape.targets.clear();
  }
  if (!cli.object_files.empty()) {
    config.sources.kubernetes.object_files = cli.object_files;
    config.sources.kubernetes.enabled = false;
  }
  if (cli.snapshot_dir) {
    config.sources.snapshot_dir = *cli.snapshot_dir;
    config.sources.scrape.targets.clear();
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

// The kubeconfig the config names, else $KUBECONFIG, else the pod's service account.
Result<sources::KubeListSourcePtr> openKubernetes(const config::KubernetesSource& kube) {
  const char* env = std::getenv("KUBECONFIG");
  const std::string kubeconfig = !kube.kubeconfig.empty() ? kube.kubeconfig
                                 : env != nullptr         ? std::string(env)
                                                          : std::string();
  auto access = kubeconfig.empty() ? sources::kubeAccessInCluster()
                                   : sources::kubeAccessFromKubeconfig(kubeconfig, kube.context);
  if (!access.ok()) {
    return makeError(access.error().describe(), "sources.kubernetes");
  }
  access->http.timeout = std::chrono::duration_cast<std::chrono::milliseconds>(kube.timeout);
  return sources::KubeListSourcePtr(std::make_unique<sources::KubernetesSource>(
      std::move(access).value(), static_cast<std::size_t>(kube.page_size)));
}

// The config gives sizes in MiB; validation keeps them at 1 or more.
std::size_t mebibytes(int mib) {
  return static_cast<std::size_t>(mib) << 20;
}

// The credentials and TLS settings every HTTP source section of the config has.
void applyCredentials(sources::HttpClientOptions& http, const config::HttpAuth& auth) {
  http.bearer_token_file = auth.bearer_token_file;
  http.basic_auth_user = auth.basic_auth.username;
  http.basic_auth_password_file = auth.basic_auth.password_file;
  http.ca_file = auth.tls.ca_file;
  http.client_cert_file = auth.tls.cert_file;
  http.client_key_file = auth.tls.key_file;
  http.tls_verify = !auth.tls.insecure_skip_verify;
}

Result<std::unique_ptr<sources::AirflowSource>> openAirflow(const config::AirflowSource& airflow) {
  sources::AirflowOptions options;
  options.url = airflow.url;
  options.api_version = airflow.api_version;
  options.timeout = std::chrono::duration_cast<std::chrono::milliseconds>(airflow.timeout);
  options.max_dags = static_cast<std::size_t>(airflow.max_dags_per_cycle);
  applyCredentials(options.http, airflow);
  auto source = sources::AirflowSource::create(std::move(options));
  if (!source.ok()) {
    return makeError(source.error().describe(), "sources.airflow");
  }
  return std::move(source).value();
}

// A one-shot read keeps no incremental state: its only read is a full one.
config::PrometheusSource readSettings(const config::PrometheusSource& prom, Reads reads) {
  config::PrometheusSource settings = prom;
  if (reads == Reads::kOnce) {
    settings.incremental.resync = config::Seconds(0);
  }
  return settings;
}

// What a live source opens: the source the reader asks (null for a direct scrape) and the reader.
struct OpenedReader {
  sources::MetricsSourcePtr source;
  ingestion::ClusterReaderPtr reader;
};

Result<sources::MetricsSourcePtr> openPrometheusSource(const config::PrometheusSource& prom) {
  sources::PrometheusOptions options;
  options.url = prom.url;
  options.timeout = std::chrono::duration_cast<std::chrono::milliseconds>(prom.timeout);
  sources::HttpClientOptions& http = options.http;
  applyCredentials(http, prom);
  http.headers = prom.headers;
  http.sigv4_region = prom.sigv4.region;
  http.sigv4_service = prom.sigv4.service;
  http.max_response_bytes = mebibytes(prom.max_response_mib);
  http.max_response_setting = "sources.prometheus.max_response_mib";
  http.accept_compressed = prom.gzip;
  options.response_budget_bytes = mebibytes(prom.response_budget_mib);
  auto source = sources::PrometheusSource::create(std::move(options));
  if (!source.ok()) {
    return source.error();
  }
  return sources::MetricsSourcePtr(std::move(source).value());
}

// Direct scrape of /metrics endpoints or exposition files: no Prometheus at all.
Result<OpenedReader> openScrape(const config::Sources& settings) {
  const config::ScrapeSource& scrape = settings.scrape;
  sources::scrape::ScraperOptions options;
  options.targets = scrape.targets;
  options.timeout = std::chrono::duration_cast<std::chrono::milliseconds>(scrape.timeout);
  applyCredentials(options.http, scrape);
  auto scraper = sources::scrape::Scraper::create(std::move(options));
  if (!scraper.ok()) {
    return makeError(scraper.error().message, "sources.scrape." + scraper.error().field);
  }
  return OpenedReader{nullptr, std::make_unique<ingestion::ScrapeClusterReader>(
                                   std::move(scraper).value(), settings)};
}

Result<OpenedReader> openPrometheus(const config::Config& config, Reads reads) {
  auto source = openPrometheusSource(config.sources.prometheus);
  if (!source.ok()) {
    return source.error();
  }
  OpenedReader opened{std::move(source).value(), nullptr};
  // Only the annotations the engine adapters read (snapshot record asks them all: recordInto).
  opened.reader = std::make_unique<ingestion::PromqlClusterReader>(
      *opened.source, readSettings(config.sources.prometheus, reads),
      model::podAnnotationsRead(config.workflow_labels));
  return opened;
}

}  // namespace

Result<config::Config> loadEffectiveConfig(const CliOptions& cli) {
  config::Config config = advice::defaultConfig();
  if (!cli.config_path.empty()) {
    auto loaded = config::loadConfigFile(cli.config_path, advice::defaultConfig());
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

Result<SourceSetup> openSource(const config::Config& config, Reads reads) {
  if (!config.sources.snapshot_dir.empty()) {
    auto snapshot = sources::SnapshotSource::open(config.sources.snapshot_dir);
    if (!snapshot.ok()) {
      return snapshot.error();
    }
    const UnixSeconds at = (*snapshot)->analysisTime();
    // Recorded Kubernetes and Airflow parts are replayed whatever their `enabled` says: the
    // snapshot reproduces the cycle it recorded, offline.
    sources::KubeListSourcePtr kubernetes = (*snapshot)->kubernetes();
    auto airflow = (*snapshot)->airflow();
    if (!airflow.ok()) {
      return airflow.error();
    }
    SourceSetup setup{std::move(snapshot).value(), nullptr, at, std::move(kubernetes),
                      std::move(airflow).value()};
    // A recording holds the catalog's full answers only: no window to read.
    setup.reader = std::make_unique<ingestion::PromqlClusterReader>(
        *setup.source, readSettings(config.sources.prometheus, Reads::kOnce));
    return setup;
  }
  const config::PrometheusSource& prom = config.sources.prometheus;
  if (prom.url.empty() && config.sources.scrape.targets.empty()) {
    return makeError(
        "no data source: give --prometheus URL or --snapshot DIR (or set sources.prometheus.url, "
        "sources.scrape.targets or sources.snapshot_dir in the config)");
  }
  auto opened = prom.url.empty() ? openScrape(config.sources) : openPrometheus(config, reads);
  if (!opened.ok()) {
    return opened.error();
  }
  SourceSetup setup{std::move(opened->source), std::move(opened->reader), std::nullopt, nullptr};
  if (!config.sources.kubernetes.object_files.empty()) {
    auto files = sources::KubeObjectFiles::open(config.sources.kubernetes.object_files);
    if (!files.ok()) {
      return makeError(files.error().describe(), "sources.kubernetes.object_files");
    }
    setup.kubernetes = std::move(files).value();
  } else if (config.sources.kubernetes.enabled) {
    auto kubernetes = openKubernetes(config.sources.kubernetes);
    if (!kubernetes.ok()) {
      return kubernetes.error();
    }
    setup.kubernetes = std::move(kubernetes).value();
  }
  if (config.sources.airflow.enabled) {
    auto airflow = openAirflow(config.sources.airflow);
    if (!airflow.ok()) {
      return airflow.error();
    }
    setup.airflow = std::move(airflow).value();
  }
  return setup;
}

std::vector<model::ObjectSourcePtr> objectSources(const config::Config& config,
                                                  sources::KubeListSource* kubernetes,
                                                  sources::AirflowApi* airflow) {
  std::vector<model::ObjectSourcePtr> out;
  if (kubernetes != nullptr) {
    out.push_back(
        std::make_unique<ingestion::KubernetesObjects>(*kubernetes, config.sources.kubernetes));
  }
  if (airflow != nullptr) {
    out.push_back(std::make_unique<ingestion::AirflowObjects>(*airflow));
  }
  return out;
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
