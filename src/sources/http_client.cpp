#include "sources/http_client.h"

#include <curl/curl.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>
#include <memory>
#include <mutex>

#include "common/secrets.h"

namespace dagadvisor::sources {
namespace {

CURL* handle(void* p) {
  return static_cast<CURL*>(p);
}

// What a body holds of its budget; destroyed with the last BudgetLease, it gives it back.
struct Share {
  std::shared_ptr<ByteBudget> budget;  // may be null
  std::size_t held = 0;                // bytes taken: the buffer's capacity
  ~Share() {
    if (budget) {
      budget->give(held);
    }
  }
};

struct BodySink {
  BodyBuffer* body;
  std::size_t max_bytes;
  CURL* curl;
  Share* share;
  bool too_large = false;
  bool over_budget = false;
  bool out_of_memory = false;  // the budget allowed it, the process could not map it
};

// The capacity the body needs for `needed` bytes plus padding: exactly the announced length
// when the server sent one, else a sixteenth more than it has (growth in place costs no copy,
// so small steps cost little and keep what a body holds near what it uses), never beyond the
// cap.
std::size_t nextCapacity(BodySink& sink, std::size_t needed) {
  curl_off_t announced = -1;
  if (sink.body->empty() &&
      curl_easy_getinfo(sink.curl, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &announced) == CURLE_OK &&
      announced > 0 && static_cast<std::size_t>(announced) <= sink.max_bytes) {
    return std::max(needed, static_cast<std::size_t>(announced) + kBodyPadding);
  }
  const std::size_t capacity = sink.body->capacity();
  return std::max(needed, std::min(capacity + capacity / 16, sink.max_bytes + kBodyPadding));
}

// Grows the buffer to `wanted`, taking the growth from the budget first. The buffer grows in
// place, so the growth is all that a body adds to the process's memory.
bool grow(BodySink& sink, std::size_t wanted) {
  Share& share = *sink.share;
  const std::size_t growth = BodyBuffer::roundedCapacity(wanted) - sink.body->capacity();
  if (share.budget && !share.budget->take(growth)) {
    sink.over_budget = true;
    return false;
  }
  if (!sink.body->reserve(wanted)) {  // under a memory limit
    if (share.budget) {
      share.budget->give(growth);
    }
    sink.out_of_memory = true;
    return false;
  }
  share.held = sink.body->capacity();
  return true;
}

// Always keeps kBodyPadding spare bytes, so the decoder never has to copy the body to pad it.
std::size_t writeBody(char* data, std::size_t size, std::size_t count, void* user) {
  auto* sink = static_cast<BodySink*>(user);
  const std::size_t n = size * count;
  BodyBuffer& body = *sink->body;
  if (body.size() + n > sink->max_bytes) {
    sink->too_large = true;
    return 0;  // makes curl abort the transfer with CURLE_WRITE_ERROR
  }
  const std::size_t needed = body.size() + n + kBodyPadding;
  if (body.capacity() < needed && !grow(*sink, nextCapacity(*sink, needed))) {
    return 0;  // over the budget: abort, as for the cap
  }
  body.append(std::string_view(data, n));
  return n;
}

bool isRetryable(CURLcode code) {
  switch (code) {
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_GOT_NOTHING:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_PARTIAL_FILE:
      return true;
    default:
      return false;
  }
}

struct SlistDeleter {
  void operator()(curl_slist* list) const { curl_slist_free_all(list); }
};
using Slist = std::unique_ptr<curl_slist, SlistDeleter>;

void append(Slist& list, const std::string& line) {
  curl_slist* grown = curl_slist_append(list.get(), line.c_str());
  if (grown != nullptr) {
    (void)list.release();
    list.reset(grown);
  }
}

std::string withoutQuery(const std::string& url) {
  return url.substr(0, url.find('?'));
}

Slist headerList(const HttpClientOptions& options, const std::vector<std::string>& extra) {
  Slist headers;
  for (const auto& [name, value] : options.headers) {
    append(headers, name + ": " + value);
  }
  for (const std::string& line : extra) {
    append(headers, line);
  }
  append(headers, "Expect:");  // no 100-continue round trip for large forms
  return headers;
}

std::string environment(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : "";
}

// In-memory PEM (curl copies it, so the option outlives nothing of ours).
void setBlob(CURL* curl, CURLoption option, const std::string& pem) {
  if (pem.empty()) {
    return;
  }
  curl_blob blob{const_cast<char*>(pem.data()), pem.size(), CURL_BLOB_COPY};
  curl_easy_setopt(curl, option, &blob);
}

void setTransferOptions(CURL* curl, const HttpClientOptions& options, long limit_ms) {
  curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);  // no SIGALRM for DNS timeouts in a threaded daemon
  // "": every encoding curl can decode; null: no Accept-Encoding, the body comes as it is.
  curl_easy_setopt(curl, CURLOPT_ACCEPT_ENCODING, options.accept_compressed ? "" : nullptr);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, limit_ms);
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS,
                   std::min(limit_ms, static_cast<long>(options.connect_timeout.count())));
  curl_easy_setopt(curl, CURLOPT_MAXFILESIZE_LARGE,
                   static_cast<curl_off_t>(options.max_response_bytes));
  curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, options.tls_verify ? 1L : 0L);
  curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, options.tls_verify ? 2L : 0L);
  if (!options.ca_file.empty()) {
    curl_easy_setopt(curl, CURLOPT_CAINFO, options.ca_file.c_str());
  }
  if (!options.client_cert_file.empty()) {
    curl_easy_setopt(curl, CURLOPT_SSLCERT, options.client_cert_file.c_str());
    curl_easy_setopt(curl, CURLOPT_SSLKEY, options.client_key_file.c_str());
  }
  setBlob(curl, CURLOPT_CAINFO_BLOB, options.ca_pem);
  setBlob(curl, CURLOPT_SSLCERT_BLOB, options.client_cert_pem);
  setBlob(curl, CURLOPT_SSLKEY_BLOB, options.client_key_pem);
}

HttpResponse describeResponse(CURL* curl, BodyBuffer body) {
  HttpResponse response;
  long status = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
  response.status = static_cast<int>(status);
  const char* type = nullptr;
  if (curl_easy_getinfo(curl, CURLINFO_CONTENT_TYPE, &type) == CURLE_OK && type != nullptr) {
    response.content_type = type;
  }
  curl_header* retry_after = nullptr;
  if (curl_easy_header(curl, "Retry-After", 0, CURLH_HEADER, -1, &retry_after) == CURLHE_OK) {
    response.retry_after = retry_after->value;
  }
  response.body = std::move(body);
  return response;
}

// The budget is only the Prometheus source's (several queries in flight), hence its keys.
std::string budgetMessage(const HttpClientOptions& options) {
  return "response bodies in flight together exceed the memory budget of " +
         std::to_string(options.budget ? options.budget->limit() : 0) +
         " bytes (sources.prometheus.response_budget_mib); fewer concurrent queries "
         "(sources.prometheus.max_concurrent_queries) or a narrower selector";
}

std::string tooLargeMessage(const HttpClientOptions& options) {
  std::string message =
      "response body exceeds " + std::to_string(options.max_response_bytes) + " bytes";
  if (!options.max_response_setting.empty()) {
    message += " (" + options.max_response_setting + ")";
  }
  return message;
}

}  // namespace

bool ByteBudget::take(std::size_t n) {
  std::size_t used = used_.load();
  do {
    if (used + n > limit_) {
      return false;
    }
  } while (!used_.compare_exchange_weak(used, used + n));
  std::size_t peak = peak_.load();
  while (used + n > peak && !peak_.compare_exchange_weak(peak, used + n)) {
  }
  return true;
}

void initHttpGlobal() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

std::string bodySnippet(std::string_view body) {
  constexpr std::size_t kSnippetChars = 200;
  std::string out;
  for (const char c : body) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isspace(u) != 0) {
      if (!out.empty() && out.back() != ' ') {
        out += ' ';
      }
    } else if (std::isprint(u) != 0) {
      out += c;
    }
    if (out.size() >= kSnippetChars) {
      return scrubSecrets(out) + "...";
    }
  }
  while (!out.empty() && out.back() == ' ') {
    out.pop_back();
  }
  // A proxy may echo the request's Authorization header or a token in its error page.
  return out.empty() ? "(empty body)" : scrubSecrets(out);
}

Result<std::string> normalizeBaseUrl(std::string url) {
  while (!url.empty() && url.back() == '/') {
    url.pop_back();
  }
  const auto scheme = url.find("://");
  const std::string name = url.substr(0, scheme == std::string::npos ? 0 : scheme);
  if (scheme == std::string::npos || (name != "http" && name != "https") ||
      url.size() == scheme + 3 || url.find_first_of("?#") != std::string::npos) {
    return makeError(
        "expected an http:// or https:// URL with a host, got \"" + redactUrl(url) + "\"", "url");
  }
  return url;
}

HttpClientOptions withTimeout(HttpClientOptions http, std::chrono::milliseconds timeout) {
  http.timeout = timeout;
  http.connect_timeout = std::min(timeout, std::chrono::milliseconds(5000));
  return http;
}

std::string redactUrl(std::string_view url) {
  const auto scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos) {
    return std::string(url);
  }
  const auto host_start = scheme_end + 3;
  const auto authority_end = std::min(url.find_first_of("/?#", host_start), url.size());
  const auto at = url.substr(0, authority_end).rfind('@');
  if (at == std::string_view::npos || at < host_start) {
    return std::string(url);
  }
  return std::string(url.substr(0, host_start)) + std::string(url.substr(at + 1));
}

HttpClient::HttpClient(HttpClientOptions options)
    : options_(std::move(options)),
      token_(options_.bearer_token_file, "bearer_token_file"),
      password_(options_.basic_auth_password_file, "basic_auth.password_file") {
  initHttpGlobal();
  registerCredentialHeaders(options_.headers);
  curl_ = curl_easy_init();
  multi_ = curl_multi_init();
}

HttpClient::~HttpClient() {
  curl_multi_cleanup(static_cast<CURLM*>(multi_));
  curl_easy_cleanup(handle(curl_));
}

void HttpClient::setBearerToken(std::string token) {
  registerSecret(token);
  session_token_ = std::move(token);
}

const Cancellation& HttpClient::cancellation() const {
  return cancellation_ ? *cancellation_ : *Cancellation::process();
}

// curl_easy_perform would block until curl's own timeout; the multi loop wakes every
// kCancelPollMs to look at the cancellation. The multi handle keeps the connection cache, so
// keep-alive works as before. Returns the transfer's CURLcode; `aborted` when it was stopped.
int HttpClient::transfer(void* easy, bool& aborted) {
  auto* multi = static_cast<CURLM*>(multi_);
  aborted = false;
  if (curl_multi_add_handle(multi, handle(easy)) != CURLM_OK) {
    return CURLE_FAILED_INIT;
  }
  CURLcode code = CURLE_OK;
  for (int running = 1; running > 0;) {
    if (cancellation().stopped()) {
      aborted = true;
      code = CURLE_ABORTED_BY_CALLBACK;
      break;
    }
    if (curl_multi_perform(multi, &running) != CURLM_OK) {
      code = CURLE_FAILED_INIT;
      break;
    }
    if (running > 0 && curl_multi_poll(multi, nullptr, 0, kCancelPollMs, nullptr) != CURLM_OK) {
      code = CURLE_FAILED_INIT;
      break;
    }
  }
  int left = 0;
  while (const CURLMsg* message = curl_multi_info_read(multi, &left)) {
    if (message->msg == CURLMSG_DONE && !aborted) {
      code = message->data.result;
    }
  }
  curl_multi_remove_handle(multi, handle(easy));
  return code;
}

Result<HttpResponse> HttpClient::get(const std::string& url, const HttpParams& params,
                                     std::optional<std::chrono::milliseconds> timeout) {
  if (params.empty()) {
    return perform(url, {}, timeout);
  }
  const char separator = url.find('?') == std::string::npos ? '?' : '&';
  return perform(url + separator + encode(params), {}, timeout);
}

Result<HttpResponse> HttpClient::post(const std::string& url, const HttpParams& params,
                                      std::optional<std::chrono::milliseconds> timeout) {
  const std::string form = encode(params);
  return perform(url, {&form, false}, timeout);
}

Result<HttpResponse> HttpClient::postJson(const std::string& url, const std::string& json,
                                          std::optional<std::chrono::milliseconds> timeout) {
  return perform(url, {&json, true}, timeout);
}

std::string HttpClient::encode(const HttpParams& params) const {
  std::string out;
  for (const auto& [key, value] : params) {
    for (const std::string* part : {&key, &value}) {
      char* escaped = curl_easy_escape(handle(curl_), part->data(), static_cast<int>(part->size()));
      out += escaped != nullptr ? escaped : "";
      curl_free(escaped);
      out += part == &key ? "=" : "&";
    }
  }
  if (!out.empty()) {
    out.pop_back();
  }
  return out;
}

// Secrets go to curl options or header lines only; none of them reaches a message.
Result<void> HttpClient::setCredentials(void* handle_ptr, std::vector<std::string>& header_lines) {
  CURL* curl = handle(handle_ptr);
  if (!session_token_.empty()) {
    header_lines.push_back("Authorization: Bearer " + session_token_);
    return {};
  }
  if (token_.configured()) {
    auto token = token_.value();
    if (!token) {
      return token.error();
    }
    header_lines.push_back("Authorization: Bearer " + *token);
  }
  if (!options_.basic_auth_user.empty()) {
    auto password = password_.valueOrEmpty();
    if (!password) {
      return password.error();
    }
    // curl sends base64(user:password): a proxy echoing the header must not show it either.
    registerBasicCredentials(options_.basic_auth_user, *password);
    curl_easy_setopt(curl, CURLOPT_HTTPAUTH, CURLAUTH_BASIC);
    curl_easy_setopt(curl, CURLOPT_USERNAME, options_.basic_auth_user.c_str());
    curl_easy_setopt(curl, CURLOPT_PASSWORD, password->c_str());  // curl copies it
  }
  if (!options_.sigv4_region.empty()) {
    const std::string key = environment("AWS_ACCESS_KEY_ID");
    const std::string secret = environment("AWS_SECRET_ACCESS_KEY");
    if (key.empty() || secret.empty()) {
      return makeError(
          "SigV4 needs AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY in the environment");
    }
    const std::string provider = "aws:amz:" + options_.sigv4_region + ":" +
                                 (options_.sigv4_service.empty() ? "aps" : options_.sigv4_service);
    registerSecret(secret);
    curl_easy_setopt(curl, CURLOPT_AWS_SIGV4, provider.c_str());
    curl_easy_setopt(curl, CURLOPT_USERNAME, key.c_str());
    curl_easy_setopt(curl, CURLOPT_PASSWORD, secret.c_str());
    if (const std::string session = environment("AWS_SESSION_TOKEN"); !session.empty()) {
      registerSecret(session);
      header_lines.push_back("x-amz-security-token: " + session);
    }
  }
  return {};
}

Result<HttpResponse> HttpClient::perform(const std::string& url, Payload payload,
                                         std::optional<std::chrono::milliseconds> timeout) {
  last_error_retryable_ = false;
  const std::string where =
      std::string(payload.data != nullptr ? "POST " : "GET ") + redactUrl(withoutQuery(url));
  if (curl_ == nullptr || multi_ == nullptr) {
    return makeError(where + ": libcurl could not create a handle");
  }
  auto limit = static_cast<long>(timeout.value_or(options_.timeout).count());
  if (const auto left = cancellation().remaining()) {
    limit = std::min(limit, static_cast<long>(left->count()));  // one deadline for the cycle
  }
  limit = std::max<long>(1, limit);
  auto response = performOnce(url, where, payload, limit);
  // A 401 may mean the token or password rotated between our reads: read them again, once.
  // An in-memory token is not read from anywhere: renewing it is the caller's.
  if (response.ok() && response->status == 401 && session_token_.empty() &&
      (token_.configured() || password_.configured())) {
    token_.forget();
    password_.forget();
    response = performOnce(url, where, payload, limit);
  }
  return response;
}

Result<HttpResponse> HttpClient::performOnce(const std::string& url, const std::string& where,
                                             Payload payload, long limit_ms) {
  CURL* curl = handle(curl_);
  curl_easy_reset(curl);  // keeps the connection cache, so keep-alive survives
  std::vector<std::string> header_lines;
  if (auto credentials = setCredentials(curl_, header_lines); !credentials) {
    return makeError(where + ": " + credentials.error().describe());
  }
  if (payload.json) {
    header_lines.emplace_back("Content-Type: application/json");
  }
  const Slist headers = headerList(options_, header_lines);
  BodyBuffer body;
  // Whatever happens next, the budget gets its bytes back with the body.
  auto share = std::make_shared<Share>();
  share->budget = options_.budget;
  BodySink sink{&body, options_.max_response_bytes, curl, share.get()};
  if (!grow(sink, kBodyPadding)) {  // an empty body is padded too
    return makeError(where + ": " + budgetMessage(options_));
  }
  std::array<char, CURL_ERROR_SIZE> detail{};
  setTransferOptions(curl, options_, limit_ms);
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, writeBody);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &sink);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, detail.data());
  if (payload.data != nullptr) {
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, payload.data->c_str());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE,
                     static_cast<curl_off_t>(payload.data->size()));
  }

  bool aborted = false;
  const auto code = static_cast<CURLcode>(transfer(curl_, aborted));
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, nullptr);  // `detail` dies with this frame
  if (aborted) {
    return makeError(where + ": cancelled: " + cancellation().reason());
  }
  if (sink.over_budget) {
    return makeError(where + ": " + budgetMessage(options_));
  }
  if (sink.out_of_memory) {
    return makeError(where + ": out of memory receiving the answer (" +
                     std::to_string(body.size() >> 20) + " MiB received)");
  }
  if (sink.too_large || code == CURLE_FILESIZE_EXCEEDED) {
    return makeError(where + ": " + tooLargeMessage(options_));
  }
  if (code != CURLE_OK) {
    last_error_retryable_ = isRetryable(code);
    std::string message = where + ": " + curl_easy_strerror(code);
    if (detail[0] != '\0') {
      message += std::string(" (") + detail.data() + ")";
    }
    return makeError(scrubSecrets(message));
  }
  HttpResponse response = describeResponse(curl, std::move(body));
  response.lease = std::move(share);
  return Result<HttpResponse>(std::move(response));
}

}  // namespace dagadvisor::sources
