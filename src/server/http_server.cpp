#include "server/http_server.h"

#include <CivetServer.h>
#include <arpa/inet.h>
#include <civetweb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <ctime>
#include <exception>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>

#include "report/report_json.h"
#include "server/query_string.h"
#include "server/read_deadlines.h"

namespace dagadvisor::server {
namespace {

// Bodies up to this size are copied behind the headers (a few microseconds) to save a packet.
constexpr std::size_t kCopyBodyBytes = 256 * 1024;

// Reads the body, refusing (false) anything over the limit without buffering it.
bool readBody(mg_connection* conn, long long declared, std::size_t limit, std::string& body) {
  if (declared > static_cast<long long>(limit)) {
    return false;
  }
  char buf[8192];
  for (int n; (n = mg_read(conn, buf, sizeof buf)) > 0;) {
    if (body.size() + static_cast<std::size_t>(n) > limit) {
      return false;
    }
    body.append(buf, static_cast<std::size_t>(n));
  }
  return true;
}

// RFC 9110 §6.6.1: an origin server with a clock sends Date, in IMF-fixdate form.
std::string httpDate() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[40];
  const std::size_t n = std::strftime(text, sizeof text, "%a, %d %b %Y %H:%M:%S GMT", &utc);
  return std::string(text, n);
}

// Whether civetweb keeps the connection after this response (the rule of its should_keep_alive,
// which is not public): HTTP/1.1 unless "Connection: close", HTTP/1.0 only with "keep-alive";
// never after a 401, nor after a request body left unread.
bool keepsAlive(const mg_request_info& info, const HttpRequest& request, int status,
                bool body_read) {
  if (status == 401 || !body_read) {
    return false;
  }
  const std::string connection = request.header("connection");
  if (!connection.empty()) {
    const std::string_view option = "keep-alive";
    return std::search(connection.begin(), connection.end(), option.begin(), option.end(),
                       [](unsigned char a, char b) { return std::tolower(a) == b; }) !=
           connection.end();
  }
  return info.http_version != nullptr && std::string_view(info.http_version) == "1.1";
}

// Status line, headers and (when small) the body leave in one send(). civetweb's header API
// sends every header line with its own send(), and with TCP_NODELAY each one is a packet: eight
// per response, which cost more than the body itself under load.
void writeResponse(mg_connection* conn, const HttpResponse& response, bool head, bool keep_alive) {
  const std::string& body = response.payload();
  std::string out = "HTTP/1.1 " + std::to_string(response.status) + " " +
                    mg_get_response_code_text(conn, response.status) +
                    "\r\nContent-Type: " + response.content_type +
                    "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n";
  for (const auto& [name, value] : response.headers) {
    out += name + ": " + value + "\r\n";
  }
  out += "Date: " + httpDate() + "\r\nConnection: " + (keep_alive ? "keep-alive" : "close") +
         "\r\n\r\n";
  if (head || body.empty()) {
    mg_write(conn, out.data(), out.size());
  } else if (body.size() <= kCopyBodyBytes) {
    out += body;
    mg_write(conn, out.data(), out.size());
  } else {
    mg_write(conn, out.data(), out.size());
    mg_write(conn, body.data(), body.size());
  }
}

// Connects to and at once disconnects from 127.0.0.1:port (a no-op request).
void pokeLoopback(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) {
    return;
  }
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr);
  ::close(fd);
}

// civetweb runs the TLS callback inside mg_start, on the thread constructing the CivetServer, and
// reports its failure only as "null context": the reason is kept here for start() to return.
thread_local std::string tls_setup_error;

Peer peerOf(const mg_connection* conn) {
  const mg_request_info* info = mg_get_request_info(conn);
  return info == nullptr ? Peer{} : Peer{info->remote_addr, info->remote_port};
}

}  // namespace

std::string HttpRequest::param(const std::string& name) const {
  const auto it = params.find(name);
  return it == params.end() ? std::string() : it->second;
}

std::string HttpRequest::header(const std::string& lower_name) const {
  const auto it = headers.find(lower_name);
  return it == headers.end() ? std::string() : it->second;
}

HttpResponse jsonError(int status, std::string_view message) {
  return HttpResponse{status, "application/json", report::dumpJson({{"error", message}}), {}};
}

// Every method of every URI arrives here and goes through HttpServer::dispatch.
class HttpServer::Impl final : public CivetHandler {
 public:
  explicit Impl(const HttpServer& owner) : owner_(owner) {}

  bool handleGet(CivetServer*, mg_connection* c) override { return handle(c); }
  bool handlePost(CivetServer*, mg_connection* c) override { return handle(c); }
  bool handleHead(CivetServer*, mg_connection* c) override { return handle(c); }
  bool handlePut(CivetServer*, mg_connection* c) override { return handle(c); }
  bool handleDelete(CivetServer*, mg_connection* c) override { return handle(c); }
  bool handleOptions(CivetServer*, mg_connection* c) override { return handle(c); }
  bool handlePatch(CivetServer*, mg_connection* c) override { return handle(c); }

  std::unique_ptr<CivetServer> civet;

  // civetweb's TLS callback; the CivetServer is civetweb's user data, its user context this Impl.
  // 1 = the certificate is set up, -1 = TLS cannot start. Runs inside mg_start, before the
  // CivetServer constructor returns.
  static int initServerTls(void* ssl_ctx, void* user_data) {
    const auto* civet = static_cast<const CivetServer*>(user_data);
    const auto* impl = static_cast<const Impl*>(civet->getUserContext());
    if (impl == nullptr || !impl->owner_.options_.tls) {
      tls_setup_error = "TLS settings missing";
      return -1;
    }
    return configureServerTls(ssl_ctx, *impl->owner_.options_.tls, tls_setup_error) ? 1 : -1;
  }

 private:
  bool handle(mg_connection* conn) const {
    const mg_request_info* info = mg_get_request_info(conn);
    HttpRequest request;
    request.method = info->request_method ? info->request_method : "";
    const std::optional<std::string> path = decodePath(info->local_uri ? info->local_uri : "");
    request.path = path.value_or("");
    request.params = parseQuery(info->query_string ? info->query_string : "");
    for (int i = 0; i < info->num_headers && i < MG_MAX_HEADERS; ++i) {
      const auto& h = info->http_headers[i];
      if (h.name != nullptr && h.value != nullptr) {
        std::string name(h.name);
        std::transform(name.begin(), name.end(), name.begin(),
                       [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        request.headers.emplace(std::move(name), h.value);
      }
    }
    HttpResponse response;
    bool body_read = false;
    // Nothing may escape into civetweb's C frames; dispatch already maps handler exceptions.
    try {
      body_read =
          readBody(conn, info->content_length, owner_.options_.max_body_bytes, request.body);
      owner_.deadlines_->requestRead(peerOf(conn));  // read in time; what follows is ours
      response = !path       ? jsonError(400, "malformed path: a bad %-escape or an encoded NUL")
                 : body_read ? dispatchInSlot(request)
                             : jsonError(413, "request body too large");
    } catch (...) {
      response = HttpResponse{500, "text/plain", "internal error\n", {}};
    }
    const bool keep_alive = keepsAlive(*info, request, response.status, body_read);
    writeResponse(conn, response, request.method == "HEAD", keep_alive);
    if (keep_alive) {  // the next request on this connection has the same deadline
      owner_.deadlines_->awaitNext(peerOf(conn));
    }
    return true;
  }

  // Handlers of the API run `threads` at a time, whatever the number of connections; probes
  // are answered at once. Taken after the body is read, so a slow uploader holds no slot.
  HttpResponse dispatchInSlot(const HttpRequest& request) const {
    for (const std::string_view probe : kProbePaths) {
      if (request.path == probe) {
        return owner_.dispatch(request);
      }
    }
    struct Slot {
      std::counting_semaphore<>& slots;
      explicit Slot(std::counting_semaphore<>& s) : slots(s) { slots.acquire(); }
      ~Slot() { slots.release(); }
    } slot(*owner_.handler_slots_);
    return owner_.dispatch(request);
  }

  const HttpServer& owner_;
};

HttpServer::HttpServer(HttpServerOptions options) : options_(std::move(options)) {}

HttpServer::~HttpServer() {
  stop();
}

void HttpServer::route(std::string method, std::string path, Handler handler, bool accepts_body) {
  const bool prefix = !path.empty() && path.back() == '*';
  if (prefix) {
    path.pop_back();
  }
  routes_.push_back(
      Route{std::move(method), std::move(path), prefix, accepts_body, std::move(handler)});
}

std::vector<std::pair<std::string, std::string>> HttpServer::routes() const {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& r : routes_) {
    out.emplace_back(r.method, r.prefix ? r.path + "*" : r.path);
  }
  return out;
}

Result<void> HttpServer::start() {
  if (impl_) {
    return {};
  }
  if (options_.tls) {
    if (auto usable = prepareCivetwebTls(); !usable.ok()) {
      return usable.error();
    }
  }
  auto impl = std::make_unique<Impl>(*this);
  const int threads = std::max(1, options_.threads);
  const int workers = std::max(threads, options_.max_connections);
  deadlines_ = std::make_unique<ReadDeadlines>(
      std::chrono::milliseconds(std::max(1, options_.request_timeout_ms)),
      static_cast<std::size_t>(workers));
  handler_slots_ = std::make_unique<std::counting_semaphore<>>(threads);
  const std::vector<std::string> civet_options = {
      "listening_ports", options_.listen + (options_.tls ? "s" : ""), "num_threads",
      std::to_string(workers),
      // A burst of connections waits in the kernel's queue, not in SYN retries.
      "listen_backlog", std::to_string(std::max(200, workers)), "request_timeout_ms",
      std::to_string(std::max(1, options_.request_timeout_ms)), "enable_directory_listing", "no",
      // Hardening (see research/reliability.md): no files or CGI can ever be served, since no
      // document root is set; bounded request headers. Keep-alive serves scrapers and load
      // without a handshake per request, but an idle connection holds a worker thread, so
      // idle keep-alive is cut after a second.
      "max_request_size", "16384", "enable_keep_alive", "yes", "keep_alive_timeout_ms", "1000",
      // A large body goes out in a second write after the headers; with Nagle it would wait
      // for the ACK of the headers, which the client delays (40 ms).
      "tcp_nodelay", "1",
      // The path as sent: civetweb's in-place decoding turns %00 into the end of a C string
      // ("/api/v1/dags/r1%00junk" served r1); handle() decodes it and refuses that.
      "decode_url", "no"};
  tls_setup_error.clear();
  try {
    CivetCallbacks callbacks{};
    callbacks.init_ssl = &Impl::initServerTls;
    impl->civet = std::make_unique<CivetServer>(civet_options, &callbacks, impl.get());
  } catch (const std::exception& e) {
    const std::string reason =
        tls_setup_error.empty() ? e.what() : "TLS setup failed: " + tls_setup_error;
    return makeError("cannot listen on " + options_.listen + ": " + reason);
  }
  impl->civet->addHandler("/", *impl);
  impl_ = std::move(impl);
  deadlines_->setLocalPort(port());
  return {};
}

void HttpServer::stop() {
  if (!impl_) {
    return;
  }
  // civetweb's accept loop polls with a 2 s timeout and only then sees the stop flag; a
  // connection to our own port wakes it at once, so stopping takes milliseconds, not 2 s. With
  // more clients than workers, connections still in the listen queue are accepted while
  // civetweb stops, and a worker reading a slow one would only see the stop flag after its
  // 2-s poll: every round shuts down what was accepted since.
  std::atomic<bool> stopped{false};
  std::thread waker([this, port = port(), &stopped] {
    for (int i = 0; i < 200 && !stopped.load(); ++i) {
      pokeLoopback(port);
      deadlines_->shutdownAll();
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  });
  impl_->civet->close();
  stopped = true;
  waker.join();
  impl_.reset();
  deadlines_.reset();
}

int HttpServer::port() const {
  if (!impl_) {
    return 0;
  }
  const auto ports = impl_->civet->getListeningPorts();
  return ports.empty() ? 0 : ports.front();
}

HttpResponse HttpServer::dispatch(const HttpRequest& request) const {
  if (gate_) {
    if (auto refused = gate_(request)) {
      return std::move(*refused);
    }
  }
  std::string allowed;
  for (const auto& r : routes_) {
    const bool path_ok = r.prefix ? request.path.starts_with(r.path) : request.path == r.path;
    if (!path_ok) {
      continue;
    }
    // HEAD is answered wherever GET is, without the body (see writeResponse).
    if (r.method != request.method && !(r.method == "GET" && request.method == "HEAD")) {
      allowed += (allowed.empty() ? "" : ", ") + r.method;
      continue;
    }
    if (!request.body.empty() && !r.accepts_body) {
      return jsonError(413, "this route takes no request body");
    }
    try {
      return r.handler(request);
    } catch (const std::exception& e) {
      return jsonError(500, std::string("internal error: ") + e.what());
    }
  }
  if (allowed.empty()) {
    return jsonError(404, "no such path: " + request.path);
  }
  HttpResponse response = jsonError(405, "method " + request.method + " not allowed");
  response.headers.emplace_back("Allow", allowed);
  return response;
}

}  // namespace dagadvisor::server
