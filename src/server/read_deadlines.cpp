#include "server/read_deadlines.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cstdlib>
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

ReadDeadlines::ReadDeadlines(std::chrono::milliseconds limit)
    : limit_(limit), watchdog_([this] { watch(); }) {}

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

std::uint64_t ReadDeadlines::cutOff() const {
  std::lock_guard lock(mutex_);
  return cut_off_;
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
  const std::vector<OpenSocket> open = connectionsOn(port);
  const auto now = SteadyClock::now();
  std::vector<int> late;
  {
    std::lock_guard lock(mutex_);
    std::map<Peer, Tracked> still_open;
    for (const OpenSocket& socket : open) {
      auto it = tracked_.find(socket.peer);
      Tracked tracked = it == tracked_.end() ? Tracked{now, true} : it->second;
      if (tracked.waiting && now - tracked.since > limit_) {
        late.push_back(socket.fd);
        continue;  // forgotten: the socket closes now
      }
      still_open.emplace(socket.peer, tracked);
    }
    tracked_ = std::move(still_open);
    cut_off_ += late.size();
  }
  for (const int fd : late) {
    ::shutdown(fd, SHUT_RDWR);  // the descriptor stays civetweb's; it closes it on EOF
  }
}

}  // namespace dagadvisor::server
