#include "app/serve.h"

#include <condition_variable>
#include <exception>
#include <mutex>
#include <new>

#include "app/analysis_cycle.h"
#include "app/app.h"
#include "app/config_check.h"
#include "app/heap.h"
#include "app/setup.h"
#include "app/signals.h"
#include "common/cancellation.h"
#include "common/log.h"
#include "exporter/cluster_self_metrics.h"
#include "exporter/metrics_handler.h"
#include "exporter/report_collector.h"
#include "exporter/self_metrics.h"
#include "server/api_handlers.h"
#include "server/health_handlers.h"
#include "server/http_server.h"
#include "server/snapshot_store.h"
#include "server/web_config.h"
#include "server/web_page.h"

namespace dagadvisor::app {
namespace {

const log::Logger kLog("serve");

/// What the signal thread and HTTP handlers ask of the cycle loop. Both requests abort the
/// cycle in flight: a stop must end the process within 2 s, and a reload should not wait for
/// a cycle on the old configuration.
class LoopControl {
 public:
  void requestStop() {
    Cancellation::process()->cancel("the daemon is stopping");
    set(stop_);
  }
  void requestReload() {
    if (const CancellationPtr cycle = current()) {
      cycle->cancel("a reload was requested");
    }
    set(reload_);
  }

  /// The cancellation of a new cycle, with its deadline, aborted by the requests above.
  CancellationPtr beginCycle(std::chrono::duration<double> timeout) {
    auto cycle = std::make_shared<Cancellation>(
        Cancellation::process(),
        Cancellation::SteadyClock::now() +
            std::chrono::duration_cast<Cancellation::SteadyClock::duration>(timeout));
    std::lock_guard lock(mutex_);
    cycle_ = cycle;
    return cycle;
  }

  /// A stop or reload is pending: a cycle that failed now was cut short on purpose.
  bool interrupted() {
    std::lock_guard lock(mutex_);
    return stop_ || reload_;
  }

  /// Sleeps until `seconds` pass or a request arrives; true unless asked to stop.
  bool waitFor(double seconds) {
    std::unique_lock lock(mutex_);
    cv_.wait_for(lock, std::chrono::duration<double>(seconds), [&] { return stop_ || reload_; });
    return !stop_;
  }
  bool takeReload() {
    std::lock_guard lock(mutex_);
    return std::exchange(reload_, false);
  }

 private:
  void set(bool& flag) {
    {
      std::lock_guard lock(mutex_);
      flag = true;
    }
    cv_.notify_all();
  }
  CancellationPtr current() {
    std::lock_guard lock(mutex_);
    return cycle_;
  }

  std::mutex mutex_;
  std::condition_variable cv_;
  bool stop_ = false;
  bool reload_ = false;
  CancellationPtr cycle_;
};

/// The basic-auth gate, swapped whole on a good reload while workers read it.
class AuthHolder {
 public:
  void set(std::shared_ptr<const server::BasicAuth> auth) {
    std::lock_guard lock(mutex_);
    auth_ = std::move(auth);
  }
  std::optional<server::HttpResponse> check(const server::HttpRequest& request) const {
    std::shared_ptr<const server::BasicAuth> auth;
    {
      std::lock_guard lock(mutex_);
      auth = auth_;
    }
    return auth ? auth->check(request) : std::nullopt;
  }
  /// Whether the request may see failure details: no users are configured, or it is one.
  bool detailsAllowed(const server::HttpRequest& request) const {
    std::shared_ptr<const server::BasicAuth> auth;
    {
      std::lock_guard lock(mutex_);
      auth = auth_;
    }
    return !auth || auth->authorized(request);
  }

 private:
  mutable std::mutex mutex_;
  std::shared_ptr<const server::BasicAuth> auth_;
};

/// What the web config file asks of the server: basic auth (null without users) and TLS.
struct WebAccess {
  std::shared_ptr<const server::BasicAuth> auth;
  std::optional<server::TlsSettings> tls;
};

/// The config, source and web access the loop currently runs with; replaced whole on a good
/// reload (TLS changes need a restart, like the listen address).
struct Running {
  config::Config config;
  SourceSetup setup;
  WebAccess web;
};

Result<WebAccess> loadWebAccess(const config::Config& config) {
  if (config.server.web_config_file.empty()) {
    return WebAccess{};
  }
  auto web = server::loadWebConfig(config.server.web_config_file);
  if (!web.ok()) {
    return web.error();
  }
  WebAccess access{nullptr, web->tls};
  if (!web->basic_auth_users.empty()) {
    access.auth = std::make_shared<server::BasicAuth>(std::move(web).value());
  }
  return access;
}

// Cycles over a moving clock read what changed; a fixed `--at` re-reads the same moment, where a
// window is never due (a snapshot replay is read once whatever this says: setup.cpp).
Reads daemonReads(const CliOptions& cli) {
  return cli.at ? Reads::kOnce : Reads::kRepeated;
}

Result<Running> prepare(const CliOptions& cli) {
  auto config = loadEffectiveConfig(cli);
  if (!config.ok()) {
    return config.error();
  }
  if (auto problem = configFilesProblem(*config)) {  // what check-config refuses, a reload does
    return *std::move(problem);
  }
  auto web = loadWebAccess(*config);
  if (!web.ok()) {
    return web.error();
  }
  auto setup = openSource(*config, daemonReads(cli));
  if (!setup.ok()) {
    return setup.error();
  }
  return Running{std::move(config).value(), std::move(setup).value(), std::move(web).value()};
}

void reload(const CliOptions& cli, Running& running, exporter::ClusterSelfMetrics& self,
            AuthHolder& auth, server::SnapshotStore& store) {
  auto next = prepare(cli);
  if (!next.ok()) {
    kLog.error("reload rejected, keeping the running configuration",
               {{"error", next.error().describe()}});
    self.current().setConfigReloadSuccessful(false);
    store.recordReload(next.error().describe());
    return;
  }
  if (next->config.server.listen != running.config.server.listen) {
    kLog.warn("server.listen changes take effect after a restart");
  }
  if (next->web.tls != running.web.tls) {
    kLog.warn("TLS changes (tls_server_config) take effect after a restart");
  }
  running = std::move(next).value();
  auth.set(running.web.auth);
  configureLogging(running.config);
  self.setCluster(running.config.analysis.cluster);  // no self-metric keeps the old label
  self.current().setConfigReloadSuccessful(true);
  store.recordReload("");
  kLog.info("configuration reloaded");
}

using ReportResult = Result<std::shared_ptr<const report::AnalysisReport>>;

ReportResult analyse(Running& running, const CliOptions& cli, const Clock& clock,
                     advice::RecommendationHistory& history) {
  auto at = analysisTime(cli, running.setup, clock);
  if (!at.ok()) {
    return at.error();
  }
  const auto objects =
      objectSources(running.config, running.setup.kubernetes.get(), running.setup.airflow.get());
  return runAnalysisCycle(*running.setup.reader, running.config, *at, clock, &history, objects);
}

// The one boundary around a cycle: whatever it throws (bad_alloc under a memory limit, a
// library's length_error on odd input) becomes a failed cycle, never the end of the daemon.
ReportResult guardedAnalyse(Running& running, const CliOptions& cli, const Clock& clock,
                            advice::RecommendationHistory& history) {
  try {
    return analyse(running, cli, clock, history);
  } catch (const std::bad_alloc&) {
    return makeError("the cycle ran out of memory (std::bad_alloc)");
  } catch (const std::exception& e) {
    return makeError(std::string("the cycle failed on an unexpected exception: ") + e.what());
  } catch (...) {
    return makeError("the cycle failed on an unknown exception");
  }
}

std::chrono::duration<double> cycleTimeout(const config::Config& config) {
  const auto timeout = config.analysis.cycle_timeout;
  return timeout.count() > 0 ? timeout : config.analysis.interval;
}

void recordFailure(const Running& running, const std::string& reason, server::SnapshotStore& store,
                   exporter::SelfMetrics& self) {
  self.recordCycleFailure(running.setup.source->describe(), reason);
  store.recordFailure(reason);
  kLog.error("analysis failed, serving the last good one as stale", {{"error", reason}});
}

void runCycle(Running& running, const CliOptions& cli, server::SnapshotStore& store,
              exporter::SelfMetrics& self, advice::RecommendationHistory& history,
              LoopControl& control) {
  running.setup.source->setCancellation(control.beginCycle(cycleTimeout(running.config)));
  const ReportResult report = guardedAnalyse(running, cli, store.clock(), history);
  if (!report.ok() && control.interrupted()) {
    kLog.info("cycle aborted by a stop or reload request", {{"error", report.error().describe()}});
    return;
  }
  try {
    if (report.ok()) {
      self.recordCycle(**report);
      store.publish(*report);
      kLog.info("analysis published",
                {{"recommendations", std::to_string((*report)->recommendations.size())},
                 {"seconds", std::to_string((*report)->analysis_seconds)}});
    } else {
      recordFailure(running, report.error().describe(), store, self);
    }
  } catch (const std::exception& e) {  // publishing allocates too
    recordFailure(running, std::string("publishing the analysis failed: ") + e.what(), store, self);
  }
  const server::Freshness fresh = store.freshness();
  self.setStale(fresh.stale, fresh.data_age_seconds);
  releaseHeapAfter(report.ok() ? report->get() : nullptr);
}

}  // namespace

int serve(const CliOptions& cli, config::Config initial) {
  useOneHeapArena();
  LoopControl control;
  SignalWatcher signals([&] { control.requestStop(); }, [&] { control.requestReload(); });
  if (const auto problem = configFilesProblem(initial)) {  // as check-config would
    kLog.error("invalid configuration", {{"error", problem->describe()}});
    return kExitUsage;
  }
  auto setup = openSource(initial, daemonReads(cli));
  if (!setup.ok()) {
    kLog.error("cannot open the data source", {{"error", setup.error().describe()}});
    return kExitUsage;
  }
  auto initial_web = loadWebAccess(initial);
  if (!initial_web.ok()) {
    kLog.error("invalid web config", {{"error", initial_web.error().describe()}});
    return kExitUsage;
  }
  Running running{std::move(initial), std::move(setup).value(), std::move(initial_web).value()};
  AuthHolder auth;
  auth.set(running.web.auth);

  SystemClock clock;
  server::SnapshotStore store(clock, running.config.server.stale_after.count());
  auto self = std::make_shared<exporter::ClusterSelfMetrics>(running.config.analysis.cluster,
                                                             DAGADVISOR_VERSION);
  exporter::MetricsHandler metrics;
  metrics.add(self);
  metrics.add(std::make_shared<exporter::ReportCollector>(
      [&store] {
        std::vector<std::shared_ptr<const report::AnalysisReport>> reports;
        if (auto current = store.current()) {
          reports.push_back(current->report);
        }
        return reports;
      },
      static_cast<std::size_t>(running.config.server.metrics_top_runs)));

  server::HttpServerOptions http_options;
  http_options.listen = running.config.server.listen;
  http_options.threads = running.config.server.threads;
  http_options.max_connections = running.config.server.max_connections;
  http_options.request_timeout_ms =
      static_cast<int>(std::max(1.0, running.config.server.request_timeout.count() * 1000));
  http_options.tls = running.web.tls;
  server::HttpServer http(std::move(http_options));
  server::registerApiRoutes(http, store);
  server::registerHealthRoutes(http, store, [&auth](const server::HttpRequest& request) {
    return auth.detailsAllowed(request);
  });
  server::registerMetricsRoute(http, metrics);
  server::registerWebPage(http);
  http.setGate([&auth](const server::HttpRequest& request) { return auth.check(request); });
  server::registerReloadRoute(http, [&control] { control.requestReload(); });
  if (auto started = http.start(); !started.ok()) {
    kLog.error("cannot start the HTTP server", {{"error", started.error().describe()}});
    return kExitFailure;
  }
  kLog.info(
      "serving",
      {{"url", (running.web.tls ? "https://" : "http://") +
                   running.config.server.listen.substr(0, running.config.server.listen.rfind(':')) +
                   ":" + std::to_string(http.port()) + "/"},
       {"source", running.setup.source->describe()}});

  advice::RecommendationHistory history;
  do {
    if (control.takeReload()) {
      reload(cli, running, *self, auth, store);
      metrics.refresh();  // the reload's outcome shows before the (maybe long) cycle ends
    }
    runCycle(running, cli, store, self->current(), history, control);
    metrics.refresh();
  } while (control.waitFor(running.config.analysis.interval.count()));

  kLog.info("stopping");
  http.stop();
  return kExitOk;
}

}  // namespace dagadvisor::app
