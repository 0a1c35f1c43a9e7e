#include "common/cancellation.h"

#include <algorithm>
#include <thread>

namespace dagadvisor {

namespace {

// How often a sleeping waiter looks at the flag: short against the 2 s stop budget, long
// against the cost of waking up.
constexpr std::chrono::milliseconds kPollStep{20};

}  // namespace

Cancellation::Cancellation(CancellationPtr parent, std::optional<SteadyClock::time_point> deadline)
    : parent_(std::move(parent)), deadline_(deadline) {}

const CancellationPtr& Cancellation::process() {
  static const CancellationPtr root = std::make_shared<Cancellation>();
  return root;
}

void Cancellation::cancel(const std::string& reason) {
  std::lock_guard lock(mutex_);
  if (!cancelledHere()) {
    reason_ = reason;
    cancelled_.store(true, std::memory_order_release);
  }
}

bool Cancellation::stopped() const {
  for (const Cancellation* c = this; c != nullptr; c = c->parent_.get()) {
    if (c->cancelledHere() || (c->deadline_ && SteadyClock::now() >= *c->deadline_)) {
      return true;
    }
  }
  return false;
}

std::optional<std::string> Cancellation::stoppedBecause() const {
  if (!stopped()) {
    return std::nullopt;
  }
  return "stopped: " + reason();
}

std::string Cancellation::reason() const {
  for (const Cancellation* c = this; c != nullptr; c = c->parent_.get()) {
    if (c->cancelledHere()) {
      std::lock_guard lock(c->mutex_);
      return c->reason_;
    }
    if (c->deadline_ && SteadyClock::now() >= *c->deadline_) {
      return "cycle deadline passed";
    }
  }
  return "";
}

std::optional<Cancellation::SteadyClock::time_point> Cancellation::deadline() const {
  std::optional<SteadyClock::time_point> earliest;
  for (const Cancellation* c = this; c != nullptr; c = c->parent_.get()) {
    if (c->deadline_ && (!earliest || *c->deadline_ < *earliest)) {
      earliest = c->deadline_;
    }
  }
  return earliest;
}

std::optional<std::chrono::milliseconds> Cancellation::remaining() const {
  const auto until = deadline();
  if (!until) {
    return std::nullopt;
  }
  const auto left =
      std::chrono::duration_cast<std::chrono::milliseconds>(*until - SteadyClock::now());
  return std::max(left, std::chrono::milliseconds(0));
}

bool Cancellation::sleepFor(std::chrono::milliseconds duration) const {
  const auto end = SteadyClock::now() + duration;
  while (!stopped()) {
    const auto now = SteadyClock::now();
    if (now >= end) {
      return true;
    }
    std::this_thread::sleep_for(std::min<SteadyClock::duration>(kPollStep, end - now));
  }
  return false;
}

}  // namespace dagadvisor
