#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <string>

#include "advice/analysis_report.h"
#include "common/clock.h"

namespace dagadvisor::server {

/// One published analysis with its API payloads serialised ONCE at publish (the JSON arrays/objects
/// that follow the per-request envelope; see report::wrapEnvelope). Immutable once published.
struct Published {
  std::shared_ptr<const advice::AnalysisReport> report;
  std::string recommendations;  // unfiltered recommendations array
  std::string findings;         // findings array
  std::string dags;             // runs array
  std::string summary;          // cluster summary object
  std::string detectors;        // detectors array
};

/// How the analysis cycles have gone lately.
struct CycleStatus {
  UnixSeconds last_attempt = 0;  // 0 = never
  UnixSeconds last_success = 0;  // 0 = never
  std::string last_error;        // "" when the last cycle succeeded
  std::size_t consecutive_failures = 0;
};

/// Whether what we serve can be trusted, computed from the store and the clock.
struct Freshness {
  bool stale = true;
  std::string reason;      // "" when fresh; else why (the /readyz text)
  double age_seconds = 0;  // now − generated_at of the current report (0 when none)
};

/// Holds the analysis the server shows. Publishing swaps a shared_ptr under a short mutex; readers
/// copy the pointer and never wait for rendering. Thread-safe.
class SnapshotStore {
 public:
  /// `clock` must outlive the store. An analysis older than `stale_after_seconds` is stale.
  SnapshotStore(const Clock& clock, double stale_after_seconds);

  /// Renders the payloads (outside the lock), swaps them in and records a successful cycle.
  void publish(std::shared_ptr<const advice::AnalysisReport> report);

  /// Records a failed cycle; the last good analysis stays served, marked stale.
  void recordFailure(std::string error);

  /// The current analysis, or null before the first publish.
  std::shared_ptr<const Published> current() const;

  CycleStatus status() const;

  /// Stale when no analysis exists yet, the last cycle failed, or the analysis is older than
  /// stale_after. Reasons: "no analysis yet", "last cycle failed: <error>",
  /// "analysis is 412s old (stale_after 300s)".
  Freshness freshness() const;

  const Clock& clock() const { return clock_; }

 private:
  const Clock& clock_;
  const double stale_after_;
  mutable std::mutex mutex_;
  std::shared_ptr<const Published> current_;
  CycleStatus status_;
};

}  // namespace dagadvisor::server
