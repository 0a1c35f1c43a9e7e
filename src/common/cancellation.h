#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace dagadvisor {

class Cancellation;
using CancellationPtr = std::shared_ptr<Cancellation>;

/// A stop request and an optional deadline shared by a cycle's threads: the loop that runs it,
/// its fetch workers, the signal thread. Whoever may block (an HTTP transfer, a retry's wait)
/// polls stopped() often enough to return within milliseconds. A child is stopped when its
/// parent is, so stopping the process stops every cycle, while ending a cycle leaves the
/// process running. Thread-safe.
class Cancellation {
 public:
  using SteadyClock = std::chrono::steady_clock;

  /// `parent` may be null; `deadline` nullopt = none.
  explicit Cancellation(CancellationPtr parent = nullptr,
                        std::optional<SteadyClock::time_point> deadline = std::nullopt);

  /// The process-wide root: cancelled when the daemon is asked to stop. Every HttpClient
  /// without a cancellation of its own watches it, so no transfer outlives a SIGTERM by more
  /// than a poll interval.
  static const CancellationPtr& process();

  /// Asks to stop; the first reason is kept.
  void cancel(const std::string& reason);

  /// Cancelled (here or in a parent) or past the deadline (here or in a parent).
  bool stopped() const;

  /// Why stopped() is true ("" when it is not): the cancel reason, or "cycle deadline passed".
  std::string reason() const;

  /// "stopped: <reason>" when stopped(), else nullopt: the message of work that was not done
  /// because a stop was asked for.
  std::optional<std::string> stoppedBecause() const;

  /// The earliest deadline of this one and its parents; nullopt when there is none.
  std::optional<SteadyClock::time_point> deadline() const;

  /// Time left before the deadline (zero when passed); nullopt without a deadline.
  std::optional<std::chrono::milliseconds> remaining() const;

  /// Sleeps `duration` or until stopped; true when it slept the whole time.
  bool sleepFor(std::chrono::milliseconds duration) const;

 private:
  bool cancelledHere() const { return cancelled_.load(std::memory_order_acquire); }

  CancellationPtr parent_;
  std::optional<SteadyClock::time_point> deadline_;
  std::atomic<bool> cancelled_{false};
  mutable std::mutex mutex_;
  std::string reason_;
};

}  // namespace dagadvisor
