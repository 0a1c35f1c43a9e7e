#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <semaphore>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.h"
#include "server/tls.h"

namespace dagadvisor::server {

/// One request as handlers see it; civetweb types stay inside http_server.cpp.
struct HttpRequest {
  std::string method;                          // "GET", "POST", …
  std::string path;                            // URL-decoded, without the query string
  std::map<std::string, std::string> params;   // URL-decoded query parameters (first value wins)
  std::map<std::string, std::string> headers;  // names lower-cased (first value wins)
  std::string body;                            // at most HttpServerOptions::max_body_bytes

  /// The parameter's value, or "" when absent.
  std::string param(const std::string& name) const;
  /// The header's value (name in lower case), or "" when absent.
  std::string header(const std::string& lower_name) const;
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // extra headers, e.g. Allow
  /// Sent instead of `body` when set: a cached body shared by many responses, never copied.
  std::shared_ptr<const std::string> shared_body{};

  /// The bytes to send.
  const std::string& payload() const { return shared_body ? *shared_body : body; }
};

using Handler = std::function<HttpResponse(const HttpRequest&)>;

/// Runs before every route: returns a response to refuse the request (401, 429, …) or nullopt to
/// let it through. Used for basic auth; must be thread-safe.
using Gate = std::function<std::optional<HttpResponse>(const HttpRequest&)>;

/// A JSON error body {"error": message} with the given status.
HttpResponse jsonError(int status, std::string_view message);

/// The probe routes: answered without waiting for a handler slot, so that busy or slow API
/// clients never make Kubernetes think the daemon is dead.
inline constexpr std::string_view kProbePaths[] = {"/healthz", "/readyz"};

struct HttpServerOptions {
  std::string listen = "127.0.0.1:9731";  // host:port; port 0 picks a free port
  int threads = 4;                        // handlers of non-probe routes running at once
  // Deadline for a request's head (and body) from its first byte: a dripping client is cut off.
  int request_timeout_ms = 10000;
  std::size_t max_body_bytes = 1 << 20;  // larger bodies are refused with 413
  std::optional<TlsSettings> tls{};      // serve HTTPS only, when set
  // Connections held at once (idle, slow or active), each on a worker thread of its own: up to
  // this many slow clients cannot starve the probes. Below `threads` means `threads`.
  int max_connections = 0;
};

/// The daemon's single HTTP server (civetweb): a route table of (method, path) → handler.
/// Paths match exactly, or by prefix when registered with a trailing "*" ("/api/v1/dags/*").
/// Unknown paths get 404 JSON, a known path with another method 405 JSON (with Allow), a
/// request body on a route that takes none 413 JSON, a handler that throws 500 JSON. No files
/// are served (no document root, no CGI). Register routes before start().
class HttpServer {
 public:
  explicit HttpServer(HttpServerOptions options);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  /// Adds a route. Only routes registered with `accepts_body` take a request body.
  void route(std::string method, std::string path, Handler handler, bool accepts_body = false);

  /// Sets the gate every request passes before routing (call before start()).
  void setGate(Gate gate) { gate_ = std::move(gate); }

  /// The registered (method, path) pairs, prefix paths with their trailing "*", in order.
  std::vector<std::pair<std::string, std::string>> routes() const;

  /// Binds and starts the worker threads; "cannot listen on <listen>: …" when it cannot.
  Result<void> start();

  /// Stops accepting and joins the workers; safe to call twice, and from the destructor.
  void stop();

  /// The bound port (the real one when listening on port 0); 0 when not started.
  int port() const;

  /// Dispatches one request through the route table (what the civetweb handler calls).
  HttpResponse dispatch(const HttpRequest& request) const;

 private:
  struct Route {
    std::string method;
    std::string path;  // exact, or prefix when it ended in "*"
    bool prefix = false;
    bool accepts_body = false;
    Handler handler;
  };
  class Impl;

  HttpServerOptions options_;
  std::unique_ptr<class ReadDeadlines> deadlines_;  // while started
  std::vector<Route> routes_;
  std::unique_ptr<std::counting_semaphore<>> handler_slots_;  // `threads` of them
  Gate gate_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace dagadvisor::server
