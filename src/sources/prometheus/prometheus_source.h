#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "sources/http_client.h"
#include "sources/metrics_source.h"

namespace dagadvisor::sources {

/// What PrometheusSource needs from the configuration; the caller copies it from
/// config::PrometheusSource so that sources/ does not depend on config/.
struct PrometheusOptions {
  std::string url;                           // http(s)://host:port[/prefix], no trailing /api
  std::chrono::milliseconds timeout{30000};  // per query, retries included
  // Auth, TLS, extra headers (e.g. X-Scope-OrgID for Mimir), body size cap; its timeouts are
  // derived from `timeout`.
  HttpClientOptions http;
  int max_retries = 2;                               // after the first attempt
  std::chrono::milliseconds retry_backoff{250};      // first wait; doubles, with ±50% jitter
  std::chrono::milliseconds max_retry_after{10000};  // cap on an honoured Retry-After
  // What the bodies of all queries in flight (and not yet decoded) may hold together, unless
  // http.budget is set: two just under the per-response cap (a body holds its bytes, a padding
  // page, and at most a sixteenth more while its length is unknown). A query that would exceed
  // it fails.
  std::size_t response_budget_bytes = std::size_t{512} << 20;
};

/// MetricsSource over a Prometheus-compatible HTTP API (Prometheus, Thanos, Mimir,
/// VictoriaMetrics): POST <url>/api/v1/query. Network errors, 5xx, 429 and 499 are retried within
/// the query timeout; other 4xx never are. Bodies are returned undecoded.
class PrometheusSource final : public MetricsSource {
 public:
  /// Validates the URL (http or https with a host) and builds the source.
  static Result<std::unique_ptr<PrometheusSource>> create(PrometheusOptions options);

  Result<QueryBody> instantQuery(const Query& query, UnixSeconds at) override;
  std::string describe() const override;
  bool concurrent() const override { return true; }
  void setCancellation(CancellationPtr cancellation) override;
  CancellationPtr cancellation() const override;

  /// Self-metrics; safe to read from any thread.
  std::uint64_t queryCount() const { return queries_.load(); }     // instantQuery calls
  std::uint64_t requestCount() const { return requests_.load(); }  // HTTP attempts, retries too
  std::uint64_t failedQueryCount() const { return failures_.load(); }
  std::uint64_t bytesReceived() const { return bytes_.load(); }  // response bodies, any status

 private:
  struct Attempt;

  PrometheusSource(PrometheusOptions options, std::string base_url);
  Attempt attempt(HttpClient& client, const Query& query, const std::string& time,
                  std::chrono::milliseconds budget);
  std::chrono::milliseconds backoff(int retry);
  std::string prefix(const Query& query) const;

  std::unique_ptr<HttpClient> takeClient();
  void returnClient(std::unique_ptr<HttpClient> client);

  PrometheusOptions options_;
  std::string base_url_;  // without a trailing '/'
  std::string endpoint_;
  // One client per concurrent query (a libcurl handle is single-threaded); idle ones are kept so
  // that connections are reused across queries and cycles.
  std::mutex clients_mutex_;
  std::vector<std::unique_ptr<HttpClient>> idle_clients_;
  mutable std::mutex cancellation_mutex_;
  CancellationPtr cancellation_;  // never null: a child of Cancellation::process() at first
  std::mutex jitter_mutex_;
  std::minstd_rand jitter_;
  std::atomic<std::uint64_t> queries_{0};
  std::atomic<std::uint64_t> requests_{0};
  std::atomic<std::uint64_t> failures_{0};
  std::atomic<std::uint64_t> bytes_{0};
};

}  // namespace dagadvisor::sources
