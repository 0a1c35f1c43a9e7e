#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "sources/http_client.h"
#include "sources/secret_file.h"

namespace dagadvisor::sources {

/// What AirflowSource needs from the configuration; the caller copies it from
/// config::AirflowSource so that sources/ does not depend on config/.
struct AirflowOptions {
  std::string url;                   // http(s)://host:port[/prefix] of the API server, no /api/v1
  std::string api_version = "auto";  // "v1" (Airflow 2), "v2" (Airflow 3), "auto" (v2, else v1)
  std::chrono::milliseconds timeout{30000};  // per request, retries excluded
  // A bearer token file (a JWT), or basic auth: Airflow 2 takes it as is, Airflow 3 (v2) trades
  // it for a JWT at POST {url}/auth/token. TLS.
  HttpClientOptions http;
  std::size_t max_dags = 50;    // distinct DAGs per fetch; the rest are skipped with a warning
  std::size_t page_size = 100;  // task instances per page (Airflow's default maximum is 100)
  int max_retries = 2;          // after the first attempt, for network errors, 5xx and 429
  std::chrono::milliseconds retry_backoff{250};  // first wait; doubles each retry
};

/// One DAG run the pod adapters found.
struct AirflowRunRef {
  std::string dag_id;
  std::string run_id;

  auto operator<=>(const AirflowRunRef&) const = default;
};

/// One task instance of a run, as the API reports it (v1 and v2 name these fields alike).
struct AirflowTaskInstance {
  std::string task_id;
  int map_index = -1;      // >= 0 for one instance of a mapped task
  int try_number = 0;      // tries started so far (0: never ran)
  std::string state;       // "success", "failed", "running", "up_for_retry", …; "" when none
  std::string start_date;  // RFC 3339 as sent; "" when not started
  std::string end_date;    // "" when not finished
  std::string hostname;    // the worker's host (the pod name under the KubernetesExecutor)
};

/// A DAG's task list: the raw body of `GET /dags/{dag_id}/tasks` (checked to hold a `tasks`
/// array), kept verbatim so that model::parseAirflowTasks reads it and a snapshot can record it.
struct AirflowDag {
  std::string dag_id;
  std::string tasks_body;
};

/// Every task instance of one run (all pages).
struct AirflowRun {
  std::string dag_id;
  std::string run_id;
  std::vector<AirflowTaskInstance> task_instances;
};

/// What one fetch() read.
struct AirflowFetch {
  std::string api_version;       // "v1" or "v2": the one used
  std::vector<AirflowDag> dags;  // sorted by dag_id
  std::vector<AirflowRun> runs;  // sorted by (dag_id, run_id); only runs of fetched DAGs
  /// Data gaps that did not stop the fetch: a DAG or run the API does not know (404), DAGs
  /// beyond max_dags. The caller reports them as data-quality warnings.
  std::vector<std::string> warnings;
  std::size_t requests = 0;  // HTTP requests made, retries included
  std::size_t bytes = 0;     // response bytes received
};

/// What reads Airflow DAGs and runs: the REST client (AirflowSource), or a snapshot's replay
/// of what it once read.
class AirflowApi {
 public:
  virtual ~AirflowApi() = default;

  /// The task lists and task instances of the `wanted` runs; gaps are AirflowFetch::warnings,
  /// an Error fails the whole fetch.
  virtual Result<AirflowFetch> fetch(const std::vector<AirflowRunRef>& wanted) = 0;

  /// A short description for logs and reports; never contains credentials.
  virtual std::string describe() const = 0;
};

namespace detail {
struct AirflowExchange;  // one HTTP answer, defined in airflow_source.cpp
}  // namespace detail

/// A read-only client of the Airflow REST API (Airflow 2 `/api/v1`, Airflow 3 `/api/v2`):
/// per DAG `GET /dags/{dag_id}/tasks` (once per fetch), per run
/// `GET /dags/{dag_id}/dagRuns/{run_id}/taskInstances` paginated with limit/offset. Ids are
/// percent-encoded. A run id the API does not know may be the sanitised label form of the real
/// one (pods without the raw `run_id` annotation; see hasSafeLabelHash): the DAG's runs are
/// then listed (`GET /dags/{dag_id}/dagRuns`, within the logical-date window the id gives, see
/// logicalDateWindow) and the one run whose label form it is gets read; the AirflowRun keeps
/// the id it was asked for.
///
/// Airflow 3 with a username and password (http.basic_auth_*, no bearer_token_file): before its
/// first /api/v2 request the source POSTs `{"username": …, "password": …}` to `{url}/auth/token`
/// and sends the `access_token` it gets (200 or 201) as the bearer token, kept across fetches.
/// A 401 on an /api/v2 request gets one new token and one more try of that request (expired
/// JWT; or, with api_version "auto", the version probe of an Airflow 3 that wants a token).
/// Not thread-safe (one libcurl handle per client).
class AirflowSource final : public AirflowApi {
 public:
  /// Validates the options (errors name the setting: "url", "api_version", …).
  static Result<std::unique_ptr<AirflowSource>> create(AirflowOptions options);

  /// Reads the task lists and task instances of the `wanted` runs (duplicates ignored; none:
  /// no request at all).
  /// A DAG or run answered with 404 is a warning and the fetch goes on. Errors (the whole
  /// fetch fails): refused credentials (401/403), a body that is not the expected JSON (named
  /// with its URL and status), other HTTP errors or network errors after the retries. With
  /// api_version "auto" the first fetch probes `/api/v2/version`, then `/api/v1/version`, and
  /// keeps the answer. A refused login names the token URL. Secrets never appear in errors.
  Result<AirflowFetch> fetch(const std::vector<AirflowRunRef>& wanted) override;

  /// "airflow <url>" without credentials.
  std::string describe() const override;

  /// HTTP requests made by all fetches so far, retries and failed fetches included (for the
  /// source's self-metrics; AirflowFetch::requests counts one successful fetch).
  std::uint64_t requestCount() const { return total_requests_; }

 private:
  AirflowSource(AirflowOptions options, std::string base_url);
  Result<detail::AirflowExchange> get(const std::string& path, const HttpParams& params,
                                      AirflowFetch& out);
  // One request with the retries of network errors, 5xx and 429; `where` names it in errors.
  Result<detail::AirflowExchange> withRetries(const std::string& where, HttpClient& client,
                                              const std::function<Result<HttpResponse>()>& request,
                                              AirflowFetch& out);
  // Airflow 3's password login: a new JWT from POST /auth/token into client_.
  Result<void> logIn(AirflowFetch& out);
  Result<std::string> detectVersion(AirflowFetch& out);
  Result<void> fetchRun(const AirflowRunRef& run, AirflowFetch& out);
  // false: the API does not know `run_id` (404).
  Result<bool> fetchInstances(const std::string& dag_id, const std::string& run_id, AirflowRun& run,
                              AirflowFetch& out);
  // The raw run id whose sanitised label form is `ref.run_id`, from the DAG's run list.
  Result<std::optional<std::string>> resolveRunId(const AirflowRunRef& ref, AirflowFetch& out);

  AirflowOptions options_;
  std::string base_url_;  // without a trailing '/'
  std::string version_;   // "v1" / "v2" once known
  HttpClient client_;
  std::unique_ptr<HttpClient> login_client_;  // no credentials; null without password login
  SecretFile password_;
  bool logged_in_ = false;  // client_ holds a JWT from logIn()
  std::uint64_t total_requests_ = 0;
};

/// One page of `GET …/taskInstances` (v1 or v2).
struct AirflowTaskInstancePage {
  std::vector<AirflowTaskInstance> task_instances;
  std::size_t total_entries = 0;
};

/// Decodes one task-instance page. Errors: not JSON, or no `task_instances` array.
Result<AirflowTaskInstancePage> parseAirflowTaskInstances(std::string_view body);

/// `text` percent-encoded as one URL path segment: everything but A–Z a–z 0–9 - . _ is escaped,
/// so run ids such as "manual__2024-01-01T00:00:00+00:00" survive.
std::string encodePathSegment(std::string_view text);

}  // namespace dagadvisor::sources
