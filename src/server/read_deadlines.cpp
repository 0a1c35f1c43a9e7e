#include "server/read_deadlines.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <vector>

namespace dagadvisor::server {
namespace {

using SteadyClock = std::chrono::steady_clock;

// How often the watchdog looks: a cut-off comes at most this late.
constexpr std::chrono::milliseconds kWatchStep{100};

struct OpenSocket {
  int fd;
  Peer peer;
};

// The peer of `fd` when it is a TCP connection accepted on `local_port`.
bool acceptedOn(int fd, int local_port, Peer& peer) {
  sockaddr_in local{};
  sockaddr_in remote{};
  socklen_t local_len = sizeof local;
  socklen_t remote_len = sizeof remote;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&local), &local_len) != 0 ||
      local.sin_family != AF_INET || ntohs(local.sin_port) != local_port ||
      ::getpeername(fd, reinterpret_cast<sockaddr*>(&remote), &remote_len) != 0) {
    return false;  // not a socket, another port, or the listening socket itself
  }
  char address[INET_ADDRSTRLEN] = {};
  ::inet_ntop(AF_INET, &remote.sin_addr, address, sizeof address);
  peer = Peer{address, ntohs(remote.sin_port)};
  return true;
}

std::vector<OpenSocket> connectionsOn(int local_port) {
  std::vector<OpenSocket> out;
  DIR* dir = ::opendir("/proc/self/fd");
  if (dir == nullptr) {
    return out;
  }
  while (const dirent* entry = ::readdir(dir)) {
    char* end = nullptr;
    const long fd = std::strtol(entry->d_name, &end, 10);
    Peer peer;
    if (end != entry->d_name && *end == '\0' &&
        acceptedOn(static_cast<int>(fd), local_port, peer)) {
      out.push_back({static_cast<int>(fd), std::move(peer)});
    }
  }
  ::closedir(dir);
  return out;
}

}  // namespace

ReadDeadlines::ReadDeadlines(std::chrono::milliseconds limit, std::size_t capacity)
    : limit_(limit), capacity_(capacity), watchdog_([this] { watch(); }) {}

ReadDeadlines::~ReadDeadlines() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  watchdog_.join();
}

void ReadDeadlines::setLocalPort(int port) {
  std::lock_guard lock(mutex_);
  local_port_ = port;
}

void ReadDeadlines::requestRead(const Peer& peer) {
  std::lock_guard lock(mutex_);
  tracked_[peer] = Tracked{SteadyClock::now(), false};
}

void ReadDeadlines::awaitNext(const Peer& peer) {
  std::lock_guard lock(mutex_);
  tracked_[peer] = Tracked{SteadyClock::now(), true};
}

void ReadDeadlines::shutdownAll() {
  int port = 0;
  {
    std::lock_guard lock(mutex_);
    port = local_port_;
  }
  for (const OpenSocket& socket : connectionsOn(port)) {
    ::shutdown(socket.fd, SHUT_RDWR);
  }
}

void ReadDeadlines::watch() {
  std::unique_lock lock(mutex_);
  while (!stop_) {
    wake_.wait_for(lock, kWatchStep, [this] { return stop_; });
    if (stop_ || local_port_ == 0) {
      continue;
    }
    lock.unlock();  // the scan makes a few syscalls per connection; requests must not wait
    sweep();
    lock.lock();
  }
}

// New sockets start their clock; closed ones are forgotten; late ones are shut down.
void ReadDeadlines::sweep() {
  int port = 0;
  {
    std::lock_guard lock(mutex_);
    port = local_port_;
  }
  const std::vector<OpenSocket> sockets = connectionsOn(port);
  const auto now = SteadyClock::now();
  std::vector<int> late;
  {
    std::lock_guard lock(mutex_);
    std::vector<Open> open;
    for (const OpenSocket& socket : sockets) {
      auto it = tracked_.find(socket.peer);
      open.push_back(
          {socket.fd, socket.peer, it == tracked_.end() ? Tracked{now, true} : it->second});
    }
    late = lateOnes(open, now);
    tracked_.clear();  // the cut ones are forgotten: their sockets close now
    for (const Open& connection : open) {
      tracked_.emplace(connection.peer, connection.tracked);
    }
  }
  for (const int fd : late) {
    ::shutdown(fd, SHUT_RDWR);  // the descriptor stays civetweb's; it closes it on EOF
  }
}

std::vector<int> ReadDeadlines::lateOnes(std::vector<Open>& open, SteadyClock::time_point now) {
  std::vector<int> late;
  auto cut = [&](auto first, auto last) {
    for (auto it = first; it != last; ++it) {
      late.push_back(it->fd);
    }
    open.erase(first, last);
  };
  const auto waitedPast = [&](std::chrono::milliseconds limit) {
    return [now, limit](const Open& c) {
      return c.tracked.waiting && now - c.tracked.since > limit;
    };
  };
  // Keeps the order of `open` for those that stay; the late ones go to the end.
  cut(std::stable_partition(open.begin(), open.end(), std::not_fn(waitedPast(limit_))), open.end());
  if (open.size() < capacity_) {
    return late;
  }
  const std::size_t keep = capacity_ * 3 / 4;
  auto waiting =
      std::stable_partition(open.begin(), open.end(), std::not_fn(waitedPast(kPressureGrace)));
  std::stable_sort(waiting, open.end(), [](const Open& a, const Open& b) {
    return a.tracked.since < b.tracked.since;  // the oldest first
  });
  const std::size_t excess = open.size() - keep;
  const auto available = static_cast<std::size_t>(open.end() - waiting);
  cut(waiting, waiting + static_cast<std::ptrdiff_t>(std::min(excess, available)));
  return late;
}

}  // namespace dagadvisor::server
