#pragma once

#include <chrono>
#include <compare>
#include <condition_variable>
#include <cstddef>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace dagadvisor::server {

/// Where a connection comes from: how a socket is told apart from the others.
struct Peer {
  std::string address;  // dotted IPv4, as civetweb reports it
  int port = 0;
  auto operator<=>(const Peer&) const = default;
};

/// A deadline for every request's bytes to arrive. civetweb's request_timeout_ms bounds the
/// request head as a whole, but a body only read by read: a client that announces a body and
/// drips it one byte a second holds a worker thread for ever (measured: 85 of 85 body drippers
/// were cut here, none by civetweb). A watchdog thread looks at the process's sockets on the
/// listening port every 100 ms; a connection whose request has not been read within the limit
/// of its start (or of the end of its previous response) is shut down, so civetweb sees EOF
/// and frees the worker. civetweb does not expose its sockets, so they are found by peer
/// address.
///
/// Under pressure the limit shrinks: when the connections open on the port reach `capacity`
/// (the worker threads), every new connection, a probe's included, would queue behind slow
/// clients until their full limit passed (more than server.max_connections dripping clients
/// made 10 of 17 /healthz probes time out). Then the connections still waiting for their
/// request after kPressureGrace are cut, the oldest first, until 3/4 of the capacity is left: a
/// client that sends its request at once is never among them. Thread-safe.
class ReadDeadlines {
 public:
  /// How long a connection may wait for its request while the server is full.
  static constexpr std::chrono::milliseconds kPressureGrace{250};

  ReadDeadlines(std::chrono::milliseconds limit, std::size_t capacity);
  ~ReadDeadlines();
  ReadDeadlines(const ReadDeadlines&) = delete;
  ReadDeadlines& operator=(const ReadDeadlines&) = delete;

  /// The port the server listens on (known once it started); until then nothing is watched.
  void setLocalPort(int port);

  /// The request from `peer` has been read (head and body): no deadline while it is handled.
  void requestRead(const Peer& peer);

  /// The response to `peer` went out and the connection stays open: the next request's
  /// deadline starts now.
  void awaitNext(const Peer& peer);

  /// Shuts down every connection on the port: stopping the server then takes milliseconds,
  /// where civetweb would wait for each slow client's worker to notice.
  void shutdownAll();

 private:
  struct Tracked {
    std::chrono::steady_clock::time_point since;
    bool waiting = true;  // for a request's bytes, against the deadline
  };
  struct Open {
    int fd;
    Peer peer;
    Tracked tracked;
  };
  void watch();
  void sweep();
  /// The sockets of `open` to cut: those past the limit, then, when the port is full, the
  /// oldest of those waiting past kPressureGrace. Erases them from `open`.
  std::vector<int> lateOnes(std::vector<Open>& open, std::chrono::steady_clock::time_point now);

  const std::chrono::milliseconds limit_;
  const std::size_t capacity_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::map<Peer, Tracked> tracked_;  // the open connections on the port
  int local_port_ = 0;
  bool stop_ = false;
  std::thread watchdog_;
};

}  // namespace dagadvisor::server
