#pragma once

#include <string>
#include <vector>

#include "common/clock.h"
#include "sources/metrics_source.h"
#include "sources/snapshot/snapshot_format.h"

namespace dagadvisor::sources {

/// A MetricsSource decorator that records what it forwards: every successful body is kept and
/// finish() writes them as a snapshot directory that SnapshotSource replays.
class SnapshotWriter final : public MetricsSource {
 public:
  /// Records queries run through `inner` (not owned; must outlive the writer) into `dir`.
  /// `clock` stamps recorded_at; nullptr means the system clock.
  SnapshotWriter(MetricsSource& inner, std::string dir, const Clock* clock = nullptr);

  /// Forwards to the inner source and keeps a copy of a successful body. Query names must
  /// match [a-z0-9_]+ (they become file names); other names are refused before forwarding.
  /// Running a name again replaces its earlier recording.
  Result<QueryBody> instantQuery(const Query& query, UnixSeconds at) override;

  /// The inner source's description: a recording is transparent.
  std::string describe() const override;

  /// Writes the recorded bodies and the manifest (analysis time `at`) to a temporary directory
  /// beside `dir` and renames it into place, so readers never see half a snapshot. An existing
  /// `dir` is replaced only when it is empty or holds a manifest.json.
  Result<void> finish(UnixSeconds at);

  std::size_t recordedCount() const { return recorded_.size(); }

 private:
  struct Recorded {
    ManifestQuery query;
    std::string body;
  };

  Result<void> writeTo(const std::string& dir, UnixSeconds at) const;

  MetricsSource& inner_;
  std::string dir_;
  SystemClock system_clock_;
  const Clock& clock_;
  std::vector<Recorded> recorded_;
};

}  // namespace dagadvisor::sources
