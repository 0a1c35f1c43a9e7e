#pragma once

#include <chrono>

namespace dagadvisor {

/// Seconds since the Unix epoch, as Prometheus speaks them (fractional for sub-second precision).
using UnixSeconds = double;

/// The time seam: production reads the system clock, tests set the time they need.
class Clock {
 public:
  virtual ~Clock() = default;
  virtual UnixSeconds now() const = 0;
};

class SystemClock final : public Clock {
 public:
  UnixSeconds now() const override {
    using namespace std::chrono;
    return duration<double>(system_clock::now().time_since_epoch()).count();
  }
};

/// A clock that only moves when told to; for deterministic tests of staleness and cycles.
class ManualClock final : public Clock {
 public:
  explicit ManualClock(UnixSeconds start) : now_(start) {}
  UnixSeconds now() const override { return now_; }
  void set(UnixSeconds t) { now_ = t; }
  void advance(double seconds) { now_ += seconds; }

 private:
  UnixSeconds now_;
};

}  // namespace dagadvisor
