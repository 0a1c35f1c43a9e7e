#include "sources/airflow/airflow_source.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "common/log.h"
#include "common/percent_encoding.h"
#include "common/secrets.h"
#include "sources/airflow/airflow_run_ids.h"

namespace dagadvisor::sources {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;

const log::Logger kLog("sources");

// A bound on the pages of one run, in case a server keeps announcing more entries than it sends.
constexpr std::size_t kMaxPages = 10000;
// Looking a sanitised run id up reads at most this many runs of its DAG (pages × page size).
constexpr std::size_t kRunListPageSize = 100;
constexpr std::size_t kMaxRunListPages = 20;

// Airflow sends null for dates and hosts it does not know yet; both read as "".
std::string textOf(const json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

long long integerOf(const json& object, const char* key, long long fallback) {
  const auto it = object.find(key);
  return it != object.end() && it->is_number_integer() ? it->get<long long>() : fallback;
}

int clampToInt(long long value) {
  return static_cast<int>(std::clamp<long long>(value, -1, 1'000'000));
}

bool retryableStatus(int status) {
  return status == 429 || status >= 500;
}

// The login goes out without the credentials of the API requests: the password is in its body.
HttpClientOptions withoutCredentials(HttpClientOptions http) {
  http.bearer_token_file.clear();
  http.basic_auth_user.clear();
  http.basic_auth_password_file.clear();
  http.sigv4_region.clear();
  return http;
}

// A username and no token file: Airflow 3 wants a JWT from its token endpoint.
bool passwordLogin(const HttpClientOptions& http) {
  return !http.basic_auth_user.empty() && http.bearer_token_file.empty();
}

}  // namespace

namespace detail {

struct AirflowExchange {
  std::string where;  // "GET <url>" without credentials or query
  int status = 0;
  std::string content_type;
  std::string body;
};

}  // namespace detail

namespace {

using Exchange = detail::AirflowExchange;

std::string statusText(const Exchange& exchange) {
  return exchange.where + ": HTTP " + std::to_string(exchange.status) +
         (exchange.content_type.empty() ? "" : " (" + exchange.content_type + ")");
}

// The body of a refused request is left out: nothing the server echoes back reaches a message.
Error httpError(const Exchange& exchange, const std::string& version) {
  if (exchange.status == 401 || exchange.status == 403) {
    const std::string hint = version == "v2"
                                 ? "; Airflow 3 (/api/v2) takes a JWT: set bearer_token_file, or "
                                   "basic_auth to have one issued by POST /auth/token"
                                 : "";
    return makeError(statusText(exchange) + ": Airflow refused the credentials (check " +
                     "bearer_token_file or basic_auth, and that the user may read DAGs, DAG runs " +
                     "and task instances" + hint + ")");
  }
  return makeError(statusText(exchange) + ": " + bodySnippet(exchange.body));
}

Result<json> parseObject(const Exchange& exchange, const char* array_key) {
  json document = json::parse(exchange.body, nullptr, false);
  if (document.is_discarded() || !document.is_object()) {
    return makeError(statusText(exchange) + ": not JSON: " + bodySnippet(exchange.body));
  }
  const auto it = document.find(array_key);
  if (it == document.end() || !it->is_array()) {
    return makeError(statusText(exchange) + ": expected a JSON object with a \"" + array_key +
                     "\" array: " + bodySnippet(exchange.body));
  }
  return document;
}

}  // namespace

std::string encodePathSegment(std::string_view text) {
  return percentEncode(text, "-._");
}

Result<AirflowTaskInstancePage> parseAirflowTaskInstances(std::string_view body) {
  const json document = json::parse(body, nullptr, false);
  const auto items = document.is_object() ? document.find("task_instances") : document.end();
  if (!document.is_object() || items == document.end() || !items->is_array()) {
    return makeError("expected a JSON object with a \"task_instances\" array", "task_instances");
  }
  AirflowTaskInstancePage page;
  for (const json& item : *items) {
    if (!item.is_object()) {
      continue;
    }
    page.task_instances.push_back(AirflowTaskInstance{
        textOf(item, "task_id"), clampToInt(integerOf(item, "map_index", -1)),
        clampToInt(integerOf(item, "try_number", 0)), textOf(item, "state"),
        textOf(item, "start_date"), textOf(item, "end_date"), textOf(item, "hostname")});
  }
  const long long total = integerOf(document, "total_entries", -1);
  page.total_entries = total >= 0 ? static_cast<std::size_t>(total) : page.task_instances.size();
  return page;
}

Result<std::unique_ptr<AirflowSource>> AirflowSource::create(AirflowOptions options) {
  auto url = normalizeBaseUrl(options.url);
  if (!url.ok()) {
    return url.error();
  }
  const std::string& version = options.api_version;
  if (version != "auto" && version != "v1" && version != "v2") {
    return makeError("must be one of auto, v1, v2 (got \"" + version + "\")", "api_version");
  }
  if (options.timeout.count() <= 0) {
    return makeError("must be positive", "timeout");
  }
  if (options.page_size == 0) {
    return makeError("must be positive", "page_size");
  }
  if (options.max_retries < 0) {
    return makeError("must not be negative", "max_retries");
  }
  return std::unique_ptr<AirflowSource>(
      new AirflowSource(std::move(options), std::move(url).value()));
}

AirflowSource::AirflowSource(AirflowOptions options, std::string base_url)
    : options_(std::move(options)),
      base_url_(std::move(base_url)),
      version_(options_.api_version == "auto" ? "" : options_.api_version),
      client_(withTimeout(options_.http, options_.timeout)),
      password_(options_.http.basic_auth_password_file, "basic_auth.password_file") {
  if (passwordLogin(options_.http) && options_.api_version != "v1") {
    login_client_ = std::make_unique<HttpClient>(
        withTimeout(withoutCredentials(options_.http), options_.timeout));
  }
}

std::string AirflowSource::describe() const {
  return "airflow " + redactUrl(base_url_);
}

Result<detail::AirflowExchange> AirflowSource::get(const std::string& path,
                                                   const HttpParams& params, AirflowFetch& out) {
  const std::string url = base_url_ + path;
  const bool login = login_client_ != nullptr && path.rfind("/api/v2/", 0) == 0;
  if (login && version_ == "v2" && !logged_in_) {
    if (auto done = logIn(out); !done) {
      return done.error();
    }
  }
  auto send = [&] {
    return withRetries(
        "GET " + redactUrl(url), client_, [&] { return client_.get(url, params); }, out);
  };
  auto exchange = send();
  // An expired JWT, or the version probe of an Airflow 3 that wants one: one new token, and
  // one more try; a second 401 is the caller's refused-credentials error.
  if (login && exchange && exchange->status == 401) {
    if (auto done = logIn(out); !done) {
      return done.error();
    }
    exchange = send();
  }
  return exchange;
}

Result<detail::AirflowExchange> AirflowSource::withRetries(
    const std::string& where, HttpClient& client,
    const std::function<Result<HttpResponse>()>& request, AirflowFetch& out) {
  for (int attempt = 0;; ++attempt) {
    auto response = request();
    ++out.requests;
    ++total_requests_;
    const bool again = attempt < options_.max_retries;
    if (!response) {
      if (!again || !client.lastErrorRetryable()) {
        return response.error();
      }
    } else {
      out.bytes += response->body.size();
      if (!again || !retryableStatus(response->status)) {
        return Exchange{where, response->status, std::move(response->content_type),
                        redactRegisteredSecrets(response->body)};
      }
    }
    std::this_thread::sleep_for(options_.retry_backoff * (1 << std::min(attempt, 10)));
  }
}

// Neither the request body (the password) nor the response body (a token, or the request
// echoed back) ever reaches a message.
Result<void> AirflowSource::logIn(AirflowFetch& out) {
  client_.setBearerToken("");
  logged_in_ = false;
  auto password = password_.valueOrEmpty();
  if (!password) {
    return password.error();
  }
  std::string body;
  try {
    body = json{{"username", options_.http.basic_auth_user}, {"password", *password}}.dump();
  } catch (const json::exception&) {  // its message would quote the offending byte
    return makeError("the username or password of sources.airflow.basic_auth is not UTF-8");
  }
  const std::string url = base_url_ + "/auth/token";
  auto exchange = withRetries(
      "POST " + redactUrl(url), *login_client_, [&] { return login_client_->postJson(url, body); },
      out);
  if (!exchange) {
    return exchange.error();
  }
  if (exchange->status == 401 || exchange->status == 403) {
    return makeError(statusText(*exchange) + ": Airflow refused the username or password " +
                     "(sources.airflow.basic_auth) at its token endpoint");
  }
  if (exchange->status != 200 && exchange->status != 201) {
    return makeError(statusText(*exchange) + ": no JWT from Airflow's token endpoint " +
                     "(an Airflow 2 takes basic auth as is: set api_version v1)");
  }
  const json document = json::parse(exchange->body, nullptr, false);
  std::string token = document.is_object() ? textOf(document, "access_token") : "";
  if (token.empty()) {
    return makeError(statusText(*exchange) +
                     ": expected a JSON object with an \"access_token\" string (body not shown)");
  }
  client_.setBearerToken(std::move(token));
  logged_in_ = true;
  kLog.debug("airflow token obtained", {{"url", redactUrl(url)}});
  return {};
}

Result<std::string> AirflowSource::detectVersion(AirflowFetch& out) {
  if (!version_.empty()) {
    return version_;
  }
  for (const std::string version : {"v2", "v1"}) {
    auto exchange = get("/api/" + version + "/version", {}, out);
    if (!exchange) {
      return exchange.error();
    }
    if (exchange->status == 404) {
      continue;
    }
    if (exchange->status != 200) {
      return httpError(*exchange, version);
    }
    const json document = json::parse(exchange->body, nullptr, false);
    if (!document.is_object() || !document.contains("version")) {
      return makeError(statusText(*exchange) +
                       ": not Airflow's version JSON: " + bodySnippet(exchange->body));
    }
    kLog.info("airflow API detected", {{"url", redactUrl(base_url_)},
                                       {"api", version},
                                       {"version", textOf(document, "version")}});
    version_ = version;
    return version_;
  }
  return makeError("no Airflow REST API at " + redactUrl(base_url_) +
                       ": /api/v2/version and /api/v1/version both answered 404",
                   "url");
}

Result<AirflowFetch> AirflowSource::fetch(const std::vector<AirflowRunRef>& wanted) {
  AirflowFetch out;
  if (wanted.empty()) {
    out.api_version = version_;  // no Airflow run in the cluster: not a single request
    return out;
  }
  auto version = detectVersion(out);
  if (!version) {
    return version.error();
  }
  out.api_version = *version;
  std::map<std::string, std::set<std::string>> runs_by_dag;
  for (const AirflowRunRef& ref : wanted) {
    runs_by_dag[ref.dag_id].insert(ref.run_id);
  }
  std::size_t skipped = 0;
  for (const auto& [dag, runs] : runs_by_dag) {
    if (out.dags.size() + skipped >= options_.max_dags) {
      ++skipped;
      continue;
    }
    auto exchange =
        get("/api/" + out.api_version + "/dags/" + encodePathSegment(dag) + "/tasks", {}, out);
    if (!exchange) {
      return exchange.error();
    }
    if (exchange->status == 404) {
      out.warnings.push_back("airflow DAG \"" + dag + "\" not found (" + statusText(*exchange) +
                             "); its runs have no declared edges");
      continue;
    }
    if (exchange->status != 200) {
      return httpError(*exchange, out.api_version);
    }
    if (auto checked = parseObject(*exchange, "tasks"); !checked) {
      return checked.error();
    }
    out.dags.push_back(AirflowDag{dag, std::move(exchange->body)});
    for (const std::string& run : runs) {
      if (auto fetched = fetchRun(AirflowRunRef{dag, run}, out); !fetched) {
        return fetched.error();
      }
    }
  }
  if (skipped > 0) {
    out.warnings.push_back(std::to_string(skipped) + " airflow DAGs beyond max_dags_per_cycle (" +
                           std::to_string(options_.max_dags) + ") were not fetched");
  }
  kLog.debug("airflow fetch done", {{"dags", std::to_string(out.dags.size())},
                                    {"runs", std::to_string(out.runs.size())},
                                    {"requests", std::to_string(out.requests)},
                                    {"warnings", std::to_string(out.warnings.size())}});
  return out;
}

Result<void> AirflowSource::fetchRun(const AirflowRunRef& ref, AirflowFetch& out) {
  AirflowRun run{ref.dag_id, ref.run_id, {}};
  auto found = fetchInstances(ref.dag_id, ref.run_id, run, out);
  if (found && !*found && hasSafeLabelHash(ref.run_id)) {
    auto raw = resolveRunId(ref, out);
    if (!raw) {
      return raw.error();
    }
    if (*raw) {
      found = fetchInstances(ref.dag_id, **raw, run, out);
    }
  }
  if (!found) {
    return found.error();
  }
  if (!*found) {
    out.warnings.push_back(
        "airflow run \"" + ref.run_id + "\" of DAG \"" + ref.dag_id +
        "\" not found (HTTP 404), neither as is nor as the label form of a listed run");
    return {};
  }
  out.runs.push_back(std::move(run));
  return {};
}

Result<bool> AirflowSource::fetchInstances(const std::string& dag_id, const std::string& run_id,
                                           AirflowRun& run, AirflowFetch& out) {
  const std::string path = "/api/" + out.api_version + "/dags/" + encodePathSegment(dag_id) +
                           "/dagRuns/" + encodePathSegment(run_id) + "/taskInstances";
  std::size_t offset = 0;
  for (std::size_t pages = 0; pages < kMaxPages; ++pages) {
    auto exchange = get(
        path, {{"limit", std::to_string(options_.page_size)}, {"offset", std::to_string(offset)}},
        out);
    if (!exchange) {
      return exchange.error();
    }
    if (exchange->status == 404) {
      return false;
    }
    if (exchange->status != 200) {
      return httpError(*exchange, out.api_version);
    }
    auto page = parseAirflowTaskInstances(exchange->body);
    if (!page) {
      return makeError(statusText(*exchange) + ": " + page.error().message + ": " +
                       bodySnippet(exchange->body));
    }
    offset += page->task_instances.size();
    std::move(page->task_instances.begin(), page->task_instances.end(),
              std::back_inserter(run.task_instances));
    if (page->task_instances.empty() || offset >= page->total_entries) {
      break;
    }
  }
  return true;
}

Result<std::optional<std::string>> AirflowSource::resolveRunId(const AirflowRunRef& ref,
                                                               AirflowFetch& out) {
  const std::string path =
      "/api/" + out.api_version + "/dags/" + encodePathSegment(ref.dag_id) + "/dagRuns";
  HttpParams window;
  if (const auto dates = logicalDateWindow(ref.run_id)) {
    // Airflow 3 renamed execution_date to logical_date.
    const std::string field = out.api_version == "v1" ? "execution_date" : "logical_date";
    window = {{field + "_gte", dates->first}, {field + "_lte", dates->second}};
  }
  std::set<std::string> matches;
  std::size_t offset = 0;
  for (std::size_t pages = 0; pages < kMaxRunListPages; ++pages) {
    HttpParams params = window;
    params.emplace_back("limit", std::to_string(kRunListPageSize));
    params.emplace_back("offset", std::to_string(offset));
    auto exchange = get(path, params, out);
    if (!exchange) {
      return exchange.error();
    }
    if (exchange->status == 404) {
      return std::optional<std::string>();
    }
    if (exchange->status != 200) {
      return httpError(*exchange, out.api_version);
    }
    auto document = parseObject(*exchange, "dag_runs");
    if (!document) {
      return document.error();
    }
    const json& runs = (*document)["dag_runs"];
    for (const json& run : runs) {
      const std::string id = run.is_object() ? textOf(run, "dag_run_id") : std::string();
      if (!id.empty() && isSafeLabelOf(ref.run_id, id)) {
        matches.insert(id);
      }
    }
    offset += runs.size();
    if (runs.empty() ||
        offset >= static_cast<std::size_t>(integerOf(*document, "total_entries", 0))) {
      break;
    }
  }
  if (matches.size() > 1) {
    out.warnings.push_back("airflow run label \"" + ref.run_id + "\" of DAG \"" + ref.dag_id +
                           "\" fits " + std::to_string(matches.size()) +
                           " runs; none is read (add the run_id annotation to the pods)");
    return std::optional<std::string>();
  }
  return matches.empty() ? std::optional<std::string>() : std::optional(*matches.begin());
}

}  // namespace dagadvisor::sources
