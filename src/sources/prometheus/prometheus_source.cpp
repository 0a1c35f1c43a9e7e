#include "sources/prometheus/prometheus_source.h"

#include <simdjson.h>

#include <cstdio>
#include <optional>

#include "common/log.h"
#include "common/secrets.h"

namespace dagadvisor::sources {
namespace {

using SteadyClock = std::chrono::steady_clock;
using std::chrono::milliseconds;

const log::Logger kLog("sources");

/// errorType and error of a Prometheus API error body; nullopt when the body is not one.
std::optional<std::string> apiErrorText(const BodyBuffer& body) {
  simdjson::dom::parser parser;
  simdjson::dom::object top;
  const bool padded = body.capacity() >= body.size() + simdjson::SIMDJSON_PADDING;
  if (parser.parse(body.data(), body.size(), !padded).get(top) != simdjson::SUCCESS) {
    return std::nullopt;
  }
  std::string_view type;
  std::string_view message;
  if (top["errorType"].get(type) != simdjson::SUCCESS ||
      top["error"].get(message) != simdjson::SUCCESS) {
    return std::nullopt;
  }
  return scrubSecrets(std::string(type) + ": " + std::string(message));
}

/// Whether `body` starts like the JSON object every API answer is (after whitespace).
bool looksLikeJsonObject(std::string_view body) {
  const auto first = body.find_first_not_of(" \t\r\n");
  return first != std::string_view::npos && body[first] == '{';
}

/// Retry-After in seconds; HTTP-date values are not honoured (nullopt → normal backoff).
std::optional<milliseconds> retryAfter(const std::string& header) {
  if (header.empty() || header.size() > 9 ||
      header.find_first_not_of("0123456789") != std::string::npos) {
    return std::nullopt;
  }
  return milliseconds(std::stol(header) * 1000);
}

// Every client of the source shares one budget (the options are copied into each).
PrometheusOptions withBudget(PrometheusOptions options) {
  if (!options.http.budget) {
    options.http.budget = std::make_shared<ByteBudget>(options.response_budget_bytes);
  }
  return options;
}

std::string formatTime(UnixSeconds at) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f", at);
  return text;
}

}  // namespace

struct PrometheusSource::Attempt {
  std::optional<QueryBody> body;
  Error error;
  bool retry = false;
  std::optional<milliseconds> wait;  // the server's Retry-After
};

Result<std::unique_ptr<PrometheusSource>> PrometheusSource::create(PrometheusOptions options) {
  auto url = normalizeBaseUrl(options.url);
  if (!url.ok()) {
    return url.error();
  }
  if (options.timeout.count() <= 0) {
    return makeError("must be positive", "timeout");
  }
  if (options.max_retries < 0) {
    return makeError("must not be negative", "max_retries");
  }
  return std::unique_ptr<PrometheusSource>(
      new PrometheusSource(std::move(options), std::move(url).value()));
}

PrometheusSource::PrometheusSource(PrometheusOptions options, std::string base_url)
    : options_(withBudget(std::move(options))),
      base_url_(std::move(base_url)),
      endpoint_(base_url_ + "/api/v1/query"),
      cancellation_(std::make_shared<Cancellation>(Cancellation::process())),
      jitter_(std::random_device{}()) {}

void PrometheusSource::setCancellation(CancellationPtr cancellation) {
  std::lock_guard lock(cancellation_mutex_);
  cancellation_ = cancellation ? std::move(cancellation)
                               : std::make_shared<Cancellation>(Cancellation::process());
}

CancellationPtr PrometheusSource::cancellation() const {
  std::lock_guard lock(cancellation_mutex_);
  return cancellation_;
}

std::string PrometheusSource::describe() const {
  return "prometheus " + redactUrl(base_url_);
}

std::string PrometheusSource::prefix(const Query& query) const {
  return describe() + ": query " + query.name + ": ";
}

std::unique_ptr<HttpClient> PrometheusSource::takeClient() {
  {
    std::lock_guard lock(clients_mutex_);
    if (!idle_clients_.empty()) {
      auto client = std::move(idle_clients_.back());
      idle_clients_.pop_back();
      return client;
    }
  }
  return std::make_unique<HttpClient>(withTimeout(options_.http, options_.timeout));
}

void PrometheusSource::returnClient(std::unique_ptr<HttpClient> client) {
  std::lock_guard lock(clients_mutex_);
  idle_clients_.push_back(std::move(client));
}

Result<QueryBody> PrometheusSource::instantQuery(const Query& query, UnixSeconds at) {
  ++queries_;
  struct Lease {
    PrometheusSource& source;
    std::unique_ptr<HttpClient> client;
    ~Lease() { source.returnClient(std::move(client)); }
  } lease{*this, takeClient()};
  const CancellationPtr cancel = cancellation();
  lease.client->setCancellation(cancel);
  auto deadline = SteadyClock::now() + options_.timeout;
  if (const auto cycle_deadline = cancel->deadline()) {
    deadline = std::min(deadline, *cycle_deadline);  // retries never outlast the cycle
  }
  const std::string time = formatTime(at);
  for (int retry = 0;; ++retry) {
    if (cancel->stopped()) {  // a query not sent yet when the cycle ended
      ++failures_;
      return makeError(prefix(query) + "cancelled: " + cancel->reason());
    }
    const auto budget = std::chrono::duration_cast<milliseconds>(deadline - SteadyClock::now());
    Attempt outcome = attempt(*lease.client, query, time, std::max(budget, milliseconds(1)));
    if (outcome.body) {
      return std::move(*outcome.body);
    }
    const milliseconds wait =
        outcome.wait ? std::min(*outcome.wait, options_.max_retry_after) : backoff(retry);
    if (!outcome.retry || retry >= options_.max_retries || SteadyClock::now() + wait >= deadline) {
      ++failures_;
      if (retry > 0) {
        outcome.error.message += " (after " + std::to_string(retry + 1) + " attempts)";
      }
      return outcome.error;
    }
    kLog.warn("retrying query", {{"query", query.name},
                                 {"attempt", std::to_string(retry + 2)},
                                 {"wait_ms", std::to_string(wait.count())},
                                 {"error", outcome.error.message}});
    (void)cancel->sleepFor(wait);  // a stop ends the wait; the loop's check reports it
  }
}

PrometheusSource::Attempt PrometheusSource::attempt(HttpClient& client, const Query& query,
                                                    const std::string& time, milliseconds budget) {
  ++requests_;
  // stats=all: Prometheus then says in the body what the query cost it (parseQueryStats).
  auto response =
      client.post(endpoint_, {{"query", query.promql}, {"time", time}, {"stats", "all"}}, budget);
  Attempt out;
  if (!response) {
    out.error = makeError(prefix(query) + response.error().message);
    out.retry = client.lastErrorRetryable();
    return out;
  }
  bytes_ += response->body.size();
  const int status = response->status;
  const std::string code = std::to_string(status);
  const std::string type =
      response->content_type.empty() ? "" : " (" + response->content_type + ")";
  if (status >= 200 && status < 300) {
    if (looksLikeJsonObject(response->body)) {
      out.body = QueryBody{std::move(response->body), std::move(response->lease)};
      return out;
    }
    // A proxy's login page or a load balancer's text answers 200 too; the decoder would only
    // say "malformed JSON". Not retried: the next attempt gets the same page.
    out.error = makeError(prefix(query) + "HTTP " + code + type + " from POST " +
                          redactUrl(endpoint_) + " is not JSON: " + bodySnippet(response->body));
    return out;
  }
  if (auto api = apiErrorText(response->body)) {
    out.error = makeError(prefix(query) + *api + " (HTTP " + code + ")");
  } else {
    out.error =
        makeError(prefix(query) + "HTTP " + code + type + ": " + bodySnippet(response->body));
  }
  // 499: a proxy or Thanos gave up on the client's behalf; the next attempt may well succeed.
  out.retry = status >= 500 || status == 429 || status == 499;
  out.wait = retryAfter(response->retry_after);
  return out;
}

milliseconds PrometheusSource::backoff(int retry) {
  std::uniform_real_distribution<double> spread(0.5, 1.5);
  const double base =
      static_cast<double>(options_.retry_backoff.count()) * (1 << std::min(retry, 16));
  std::lock_guard lock(jitter_mutex_);
  return milliseconds(static_cast<long>(base * spread(jitter_)));
}

}  // namespace dagadvisor::sources
