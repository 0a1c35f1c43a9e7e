#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <ctime>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/cancellation.h"
#include "common/result.h"
#include "sources/body_buffer.h"
#include "sources/secret_file.h"

namespace dagadvisor::sources {

/// How often a transfer in progress looks at its cancellation: a stop request or a passed
/// deadline ends it within this time, whatever the server does (hangs, drips, never answers).
inline constexpr long kCancelPollMs = 50;

/// The bytes that response bodies may hold together, shared by the clients of one source, so
/// that N concurrent queries cannot hold N times the per-response cap. A body takes its share
/// while it streams in (its buffer's capacity, which grows in place: see BodyBuffer) and gives it
/// back when it is destroyed (the HttpResponse's, then the QueryBody's, `lease`). Thread-safe.
class ByteBudget {
 public:
  explicit ByteBudget(std::size_t limit) : limit_(limit) {}
  std::size_t limit() const { return limit_; }
  std::size_t used() const { return used_.load(); }
  /// The most ever held at once: what the limit has to cover.
  std::size_t peak() const { return peak_.load(); }

  /// Takes `n` bytes; false (taking nothing) when that would exceed the limit.
  bool take(std::size_t n);
  void give(std::size_t n) { used_.fetch_sub(n); }

 private:
  const std::size_t limit_;
  std::atomic<std::size_t> used_{0};
  std::atomic<std::size_t> peak_{0};
};

/// What a body holds of a ByteBudget; gives it back when the last copy is destroyed.
using BudgetLease = std::shared_ptr<const void>;

/// Settings of one HttpClient; defaults are safe (TLS verified, bounded body size).
struct HttpClientOptions {
  std::chrono::milliseconds timeout{30000};         // whole request, unless the call overrides it
  std::chrono::milliseconds connect_timeout{5000};  // TCP + TLS handshake
  std::size_t max_response_bytes = std::size_t{256} << 20;
  std::string max_response_setting{};    // its configuration key, named when a body exceeds it
  std::shared_ptr<ByteBudget> budget{};  // shared with other clients; null = only the cap above
  std::map<std::string, std::string> headers{};  // sent with every request
  std::string bearer_token_file{};  // re-read when its mtime changes; the token is never logged
  bool tls_verify = true;
  // Asks the server to compress its answers (Accept-Encoding: gzip, deflate...): ~10x fewer
  // bytes on the wire, paid in CPU on both sides.
  bool accept_compressed = true;
  std::string ca_file{};           // extra CA bundle; "" = system store
  std::string client_cert_file{};  // TLS client certificate (PEM), with client_key_file
  std::string client_key_file{};
  std::string ca_pem{};  // the same three as PEM text in memory (kubeconfig "*-data" fields)
  std::string client_cert_pem{};
  std::string client_key_pem{};
  std::string basic_auth_user{};           // HTTP basic auth, when set
  std::string basic_auth_password_file{};  // re-read like the token; never logged
  // AWS Signature V4 (Amazon Managed Prometheus): region and service ("aps"); credentials come
  // from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN at request time.
  std::string sigv4_region{};
  std::string sigv4_service{};
};

/// A base URL for an HTTP API: `url` without trailing slashes, which must be http:// or
/// https:// with a host and no query or fragment. The Error's field is "url".
Result<std::string> normalizeBaseUrl(std::string url);

/// `http` with a whole-request `timeout`, and a connect timeout of the same but at most 5 s.
HttpClientOptions withTimeout(HttpClientOptions http, std::chrono::milliseconds timeout);

/// One completed HTTP exchange (any status code).
struct HttpResponse {
  int status = 0;
  BodyBuffer body;           // capacity() >= size() + kBodyPadding
  std::string content_type;  // "" when the server sent none
  std::string retry_after;   // raw Retry-After header value, "" when absent
  BudgetLease lease{};       // the body's share of HttpClientOptions::budget; keep it with the body
};

/// Query-string or form parameters, in order; values are escaped by the client.
using HttpParams = std::vector<std::pair<std::string, std::string>>;

/// Initialises libcurl once per process; call it from main before any thread starts.
/// HttpClient calls it too (guarded by std::call_once), so calling it is optional in tests.
void initHttpGlobal();

/// `url` with any `user:password@` removed, for messages and logs.
std::string redactUrl(std::string_view url);

/// The start of a body that is not the JSON a source expected (an HTML page from a proxy, a
/// text 503), control characters dropped and whitespace folded, so that it fits one message.
std::string bodySnippet(std::string_view body);

/// The project's only libcurl user: a blocking HTTP client over one reused easy handle
/// (keep-alive). Not thread-safe: use one client per thread.
class HttpClient {
 public:
  explicit HttpClient(HttpClientOptions options);
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  /// GET `url?params`. Transport failures (refused, timeout, DNS, TLS, body too large) are
  /// Errors naming the URL without credentials and curl's message; any HTTP status is a value.
  Result<HttpResponse> get(const std::string& url, const HttpParams& params,
                           std::optional<std::chrono::milliseconds> timeout = std::nullopt);

  /// POST `params` as application/x-www-form-urlencoded; errors as for get().
  Result<HttpResponse> post(const std::string& url, const HttpParams& params,
                            std::optional<std::chrono::milliseconds> timeout = std::nullopt);

  /// POST `json` as application/json (a login: the body may hold a password; it is never
  /// logged and never part of an error). Errors as for get().
  Result<HttpResponse> postJson(const std::string& url, const std::string& json,
                                std::optional<std::chrono::milliseconds> timeout = std::nullopt);

  /// A bearer token held in memory (a JWT a login endpoint issued), sent as `Authorization:
  /// Bearer` instead of bearer_token_file and basic auth while it is set; "" clears it. The
  /// caller renews it: a 401 is returned as is, with no re-read of the secret files.
  void setBearerToken(std::string token);

  /// What aborts this client's transfers: a cycle's cancellation (its stop request and
  /// deadline). Null watches Cancellation::process() only. A stopped call fails with
  /// "cancelled: <reason>" within kCancelPollMs, never retryable.
  void setCancellation(CancellationPtr cancellation) { cancellation_ = std::move(cancellation); }

  /// Whether the last failed call is worth retrying (refused, timeout, DNS, reset); false
  /// for permanent faults (TLS, malformed URL, body too large, unreadable token file).
  bool lastErrorRetryable() const { return last_error_retryable_; }

 private:
  // What a POST sends; a GET sends none.
  struct Payload {
    const std::string* data = nullptr;
    bool json = false;  // else a form
  };
  Result<HttpResponse> perform(const std::string& url, Payload payload,
                               std::optional<std::chrono::milliseconds> timeout);
  Result<HttpResponse> performOnce(const std::string& url, const std::string& where,
                                   Payload payload, long limit_ms);
  Result<void> setCredentials(void* curl, std::vector<std::string>& header_lines);
  std::string encode(const HttpParams& params) const;

  HttpClientOptions options_;
  const Cancellation& cancellation() const;
  int transfer(void* curl, bool& aborted);

  void* curl_ = nullptr;   // CURL*, kept opaque so that only http_client.cpp includes curl.h
  void* multi_ = nullptr;  // CURLM* running the transfer, so a stop is seen between polls
  CancellationPtr cancellation_;
  SecretFile token_;
  SecretFile password_;
  std::string session_token_;  // setBearerToken(); never logged
  bool last_error_retryable_ = false;
};

}  // namespace dagadvisor::sources
