// The bytes on the wire: the server writes status line and headers itself (one send instead of
// civetweb's one per header line), so framing and keep-alive are checked on a raw socket.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <ctime>
#include <map>
#include <optional>
#include <string>

#include "server/http_server.h"

namespace dagadvisor::server {
namespace {

struct RawResponse {
  std::string status_line;
  std::map<std::string, std::string> headers;  // names as sent
  std::string body;
};

class RawConnection {
 public:
  explicit RawConnection(int port) : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
    REQUIRE(fd_ >= 0);
    timeval timeout{5, 0};  // a test that waits for bytes that never come fails, never hangs
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<std::uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::connect(fd_, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0);
  }
  ~RawConnection() { ::close(fd_); }
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;

  void send(const std::string& bytes) {
    REQUIRE(::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL) ==
            static_cast<ssize_t>(bytes.size()));
  }

  /// One response; `with_body` false for HEAD, whose Content-Length announces no bytes.
  RawResponse read(bool with_body = true) {
    while (buffer_.find("\r\n\r\n") == std::string::npos) {
      REQUIRE(fill());
    }
    const std::size_t end = buffer_.find("\r\n\r\n");
    RawResponse response;
    std::size_t line_start = 0;
    for (std::size_t line_end; (line_end = buffer_.find("\r\n", line_start)) <= end;
         line_start = line_end + 2) {
      const std::string line = buffer_.substr(line_start, line_end - line_start);
      if (line_start == 0) {
        response.status_line = line;
      } else if (const auto colon = line.find(": "); colon != std::string::npos) {
        response.headers[line.substr(0, colon)] = line.substr(colon + 2);
      }
    }
    buffer_.erase(0, end + 4);
    const std::size_t length =
        with_body ? std::stoul(response.headers.at("Content-Length")) : std::size_t{0};
    while (buffer_.size() < length) {
      REQUIRE(fill());
    }
    response.body = buffer_.substr(0, length);
    buffer_.erase(0, length);
    return response;
  }

  /// True when the server closed the connection with nothing more to read.
  bool closedByServer() { return buffer_.empty() && !fill(); }

 private:
  bool fill() {
    char chunk[16384];
    const ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
    if (n <= 0) {
      return false;
    }
    buffer_.append(chunk, static_cast<std::size_t>(n));
    return true;
  }

  int fd_;
  std::string buffer_;
};

struct Server {
  Server() : server(HttpServerOptions{"127.0.0.1:0", 2, 5000, 64}) {
    server.route("GET", "/big", [](const HttpRequest&) {
      return HttpResponse{200, "text/plain", std::string(300 * 1024, 'b'), {}};  // two writes
    });
    server.route("GET", "/small", [](const HttpRequest&) {
      HttpResponse response{200, "text/plain", "small", {}};
      response.headers.emplace_back("Vary", "Accept-Encoding");
      return response;
    });
    server.route(
        "POST", "/echo",
        [](const HttpRequest& r) {
          return HttpResponse{200, "text/plain", r.body, {}};
        },
        true);
    REQUIRE(server.start().ok());
    port = server.port();
  }
  HttpServer server;
  int port = 0;
};

std::string get(const std::string& path, const std::string& extra = "",
                const std::string& version = "HTTP/1.1") {
  return "GET " + path + " " + version + "\r\nHost: 127.0.0.1\r\n" + extra + "\r\n";
}

TEST_CASE("HTTP/1.1 responses are whole, dated and kept alive for the next request") {
  Server s;
  RawConnection c(s.port);
  c.send(get("/small"));
  const RawResponse small = c.read();
  CHECK(small.status_line == "HTTP/1.1 200 OK");
  CHECK(small.headers.at("Content-Type") == "text/plain");
  CHECK(small.headers.at("Content-Length") == "5");
  CHECK(small.headers.at("Vary") == "Accept-Encoding");
  CHECK(small.headers.at("Connection") == "keep-alive");
  CHECK(small.body == "small");
  std::tm date{};
  const std::string when = small.headers.at("Date");
  CHECK(strptime(when.c_str(), "%a, %d %b %Y %H:%M:%S GMT", &date) == when.c_str() + when.size());

  c.send(get("/big"));  // same connection; the body leaves in a write of its own
  const RawResponse big = c.read();
  CHECK(big.status_line == "HTTP/1.1 200 OK");
  CHECK(big.body == std::string(300 * 1024, 'b'));

  c.send(get("/nowhere"));
  const RawResponse missing = c.read();
  CHECK(missing.status_line == "HTTP/1.1 404 Not Found");
  CHECK(missing.headers.at("Connection") == "keep-alive");
  CHECK(missing.body.find("no such path") != std::string::npos);
}

TEST_CASE("HEAD announces the GET body's length and sends none of it") {
  Server s;
  RawConnection c(s.port);
  c.send("HEAD /big HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  const RawResponse head = c.read(false);
  CHECK(head.headers.at("Content-Length") == std::to_string(300 * 1024));
  c.send(get("/small"));  // had a body followed the HEAD, this would read its bytes instead
  CHECK(c.read().body == "small");
}

TEST_CASE("the connection closes when the client asks, speaks HTTP/1.0, or sent too much") {
  Server s;
  SECTION("Connection: close") {
    RawConnection c(s.port);
    c.send(get("/small", "Connection: close\r\n"));
    CHECK(c.read().headers.at("Connection") == "close");
    CHECK(c.closedByServer());
  }
  SECTION("HTTP/1.0 without keep-alive") {
    RawConnection c(s.port);
    c.send(get("/small", "", "HTTP/1.0"));
    CHECK(c.read().headers.at("Connection") == "close");
    CHECK(c.closedByServer());
  }
  SECTION("HTTP/1.0 with keep-alive") {
    RawConnection c(s.port);
    c.send(get("/small", "Connection: keep-alive\r\n", "HTTP/1.0"));
    CHECK(c.read().headers.at("Connection") == "keep-alive");
    c.send(get("/small", "Connection: keep-alive\r\n", "HTTP/1.0"));
    CHECK(c.read().body == "small");
  }
  SECTION("a body over the limit is refused, unread, and the connection closed") {
    RawConnection c(s.port);
    c.send("POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n" +
           std::string(100, 'x'));
    const RawResponse refused = c.read();
    CHECK(refused.status_line.starts_with("HTTP/1.1 413 "));
    CHECK(refused.headers.at("Connection") == "close");
    CHECK(c.closedByServer());
  }
}

}  // namespace
}  // namespace dagadvisor::server
