#pragma once

// A civetweb server on 127.0.0.1:<ephemeral> shared by the test cases of unit_sources. One
// instance per binary, never stopped, because stopping a CivetServer takes up to 2 s. Each test
// routes its own unique path, and the server logs every request it receives for the test to
// inspect.

#include <CivetServer.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace dagadvisor::testing {

struct SeenRequest {
  std::string method;
  std::string path;
  std::string query;  // raw, still percent-encoded
  std::string body;
  std::map<std::string, std::string> headers;  // the ones tests look at

  std::string header(const std::string& name) const {
    auto it = headers.find(name);
    return it == headers.end() ? "" : it->second;
  }
};

struct Reply {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
  bool send_length = true;  // false: the body runs until the connection closes
};

/// Returns the reply to the `index`-th request (0-based) of its route.
using Route = std::function<Reply(const SeenRequest& request, std::size_t index)>;

/// A latch a slow route waits on, so a test can release it once the client has given up.
class Gate {
 public:
  void open() {
    std::lock_guard lock(mutex_);
    open_ = true;
    cv_.notify_all();
  }
  void waitAtMost(std::chrono::milliseconds limit) {
    std::unique_lock lock(mutex_);
    cv_.wait_for(lock, limit, [this] { return open_; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool open_ = false;
};

class LoopbackServer : public CivetHandler {
 public:
  /// Never destroyed: stopping a CivetServer waits for its listener's poll, up to 2 s, and
  /// ctest runs each test case as a process of its own (50 of them paid it at exit, 100 s of a
  /// CI run). Exiting closes the socket; no request is in flight once a test has returned.
  static LoopbackServer& instance() {
    static auto* server = new LoopbackServer(
        "http", std::vector<std::string>{"listening_ports", "127.0.0.1:0", "num_threads", "4"});
    return *server;
  }

  /// "<scheme>://127.0.0.1:<port><path>".
  std::string url(const std::string& path) const {
    return scheme_ + "://127.0.0.1:" + std::to_string(port_) + path;
  }
  int port() const { return port_; }

  void route(const std::string& path, Route route) {
    std::lock_guard lock(mutex_);
    routes_[path] = std::move(route);
    seen_[path].clear();
  }

  std::vector<SeenRequest> seen(const std::string& path) {
    std::lock_guard lock(mutex_);
    return seen_[path];
  }

  bool handleGet(CivetServer*, mg_connection* conn) override { return serve(conn); }
  bool handlePost(CivetServer*, mg_connection* conn) override { return serve(conn); }

 private:
  LoopbackServer(std::string scheme, const std::vector<std::string>& options)
      : scheme_(std::move(scheme)), server_(options) {
    server_.addHandler("/", this);
    port_ = server_.getListeningPorts().at(0);
  }

  static SeenRequest read(mg_connection* conn) {
    const mg_request_info* info = mg_get_request_info(conn);
    SeenRequest request;
    request.method = info->request_method;
    request.path = info->local_uri;
    request.query = info->query_string != nullptr ? info->query_string : "";
    request.body = CivetServer::getPostData(conn);
    for (const char* name : {"Content-Type", "Authorization", "Accept", "Accept-Encoding",
                             "X-Scope-OrgID", "x-amz-security-token", "x-amz-date"}) {
      const char* value = mg_get_header(conn, name);
      request.headers[name] = value != nullptr ? value : "";
    }
    return request;
  }

  bool serve(mg_connection* conn) {
    SeenRequest request = read(conn);
    Route route;
    std::size_t index = 0;
    {
      std::lock_guard lock(mutex_);
      auto it = routes_.find(request.path);
      if (it != routes_.end()) {
        route = it->second;
      }
      index = seen_[request.path].size();
      seen_[request.path].push_back(request);
    }
    const Reply reply =
        route ? route(request, index) : Reply{404, "text/plain", "no route " + request.path, {}};
    std::string head = "HTTP/1.1 " + std::to_string(reply.status) +
                       " Test\r\nContent-Type: " + reply.content_type + "\r\nConnection: close\r\n";
    if (reply.send_length) {
      head += "Content-Length: " + std::to_string(reply.body.size()) + "\r\n";
    }
    for (const auto& [name, value] : reply.headers) {
      head += name + ": " + value + "\r\n";
    }
    head += "\r\n";
    mg_write(conn, head.data(), head.size());
    mg_write(conn, reply.body.data(), reply.body.size());
    return true;
  }

  std::mutex mutex_;
  std::map<std::string, Route> routes_;
  std::map<std::string, std::vector<SeenRequest>> seen_;
  std::string scheme_;
  int port_ = 0;
  CivetServer server_;  // last: stopped first, while the route tables still exist
};

}  // namespace dagadvisor::testing
