#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "common/clock.h"
#include "report/analysis_report.h"

namespace dagadvisor::server {

/// Renderings made on first request and then kept for the rest of the cycle (per-run DAG SVG,
/// Gantt, detail JSON): rendering every run at publish would cost seconds on big clusters.
/// Thread-safe; at most `kMaxEntries` are kept, beyond that they are rendered per request.
class RenderCache {
 public:
  static constexpr std::size_t kMaxEntries = 2048;

  /// The cached value for `key`, or render() stored and returned. render() runs outside the lock,
  /// so two first requests may both render; the first stored result wins.
  std::string get(const std::string& key, const std::function<std::string()>& render) const;

 private:
  mutable std::mutex mutex_;
  mutable std::map<std::string, std::string> entries_;
};

/// One published analysis with its API payloads serialised ONCE at publish (the JSON arrays/objects
/// that follow the per-request envelope; see report::wrapEnvelope). Immutable once published,
/// apart from the memoising `renders` cache.
struct Published {
  std::shared_ptr<const report::AnalysisReport> report;
  std::string recommendations;  // unfiltered recommendations array
  std::string prediction;       // the replay's calibration and the set applied together
  std::string findings;         // findings array
  std::string dags;             // runs array
  std::string summary;          // cluster summary object
  std::string detectors;        // detectors array
  std::string nodes;            // nodes array
  std::string scheduling;       // scheduler statistics object
  RenderCache renders;
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
  std::string reason;  // "" when fresh; else why (the /readyz text)
  // The reason without the failure's details (URLs, bodies): what /readyz tells a client that
  // did not authenticate where basic auth is configured.
  std::string short_reason;
  double age_seconds = 0;  // now − generated_at of the current report (0 when none)
  /// now − data_time of the current report (0 when none): the age of the data itself, what the
  /// API's data_age_seconds and the dagadvisor_data_age_seconds metric both report.
  double data_age_seconds = 0;
  /// Why the last reload was rejected ("" when it was taken, or none was asked for): the daemon
  /// goes on with the configuration it runs, which /readyz says beside its status.
  std::string reload_problem;
};

/// Holds the analysis the server shows. Publishing swaps a shared_ptr under a short mutex; readers
/// copy the pointer and never wait for rendering. Thread-safe.
class SnapshotStore {
 public:
  /// `clock` must outlive the store. An analysis older than `stale_after_seconds` is stale.
  SnapshotStore(const Clock& clock, double stale_after_seconds);

  /// Renders the payloads (outside the lock), swaps them in and records a successful cycle.
  void publish(std::shared_ptr<const report::AnalysisReport> report);

  /// Records a failed cycle; the last good analysis stays served, marked stale.
  void recordFailure(std::string error);

  /// Records a reload's outcome: "" when the new configuration was taken, else why it was
  /// rejected (scrubbed of secrets like every failure).
  void recordReload(std::string problem);

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
  std::string reload_problem_;
};

}  // namespace dagadvisor::server
