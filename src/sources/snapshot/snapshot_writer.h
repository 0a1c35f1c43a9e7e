#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/clock.h"
#include "sources/kubernetes/kube_list_source.h"
#include "sources/metrics_source.h"
#include "sources/snapshot/airflow_snapshot.h"
#include "sources/snapshot/snapshot_format.h"

namespace dagadvisor::sources {

/// A KubeListSource decorator that keeps every LIST it forwards, pages verbatim, for a
/// SnapshotWriter to write. Failed LISTs are not kept: a replay reports them as not recorded.
class KubeListRecorder final : public KubeListSource {
 public:
  struct Recorded {
    std::string path;
    std::string label_selector;
    KubeList list;
  };

  /// Records the LISTs of `inner` (not owned; must outlive the recorder).
  explicit KubeListRecorder(KubeListSource& inner) : inner_(inner) {}

  /// Forwards to the inner source; a LIST of the same path and selector replaces the earlier one.
  Result<KubeList> list(const std::string& path, const std::string& label_selector) override;
  std::string describe() const override { return inner_.describe(); }
  std::string whyNotServed(const std::string& path) const override {
    return inner_.whyNotServed(path);
  }

  const std::vector<Recorded>& recorded() const { return recorded_; }

 private:
  KubeListSource& inner_;
  std::vector<Recorded> recorded_;
};

/// A MetricsSource decorator that records what it forwards: every successful body is kept and
/// finish() writes them as a snapshot directory that SnapshotSource replays.
class SnapshotWriter final : public MetricsSource {
 public:
  /// Records queries run through `inner` (not owned; must outlive the writer) into `dir`.
  /// `clock` stamps recorded_at; nullptr means the system clock.
  SnapshotWriter(MetricsSource& inner, std::string dir, const Clock* clock = nullptr);

  /// Forwards to the inner source and keeps a copy of a successful body. Query names must
  /// match [a-z0-9_]+ (they become file names); other names are refused before forwarding.
  /// Running a name with the same text again replaces its earlier recording; with another
  /// text it is recorded beside it (a query asked in several requests, each for some pods).
  Result<QueryBody> instantQuery(const Query& query, UnixSeconds at) override;

  /// The inner source's description: a recording is transparent.
  std::string describe() const override;

  /// Writes the recorded bodies and the manifest (analysis time `at`) to a temporary directory
  /// beside `dir` and renames it into place, so readers never see half a snapshot. An existing
  /// `dir` is replaced only when it is empty or holds a manifest.json.
  Result<void> finish(UnixSeconds at);

  std::size_t recordedCount() const { return recorded_.size(); }

  /// Records the Kubernetes LISTs run through the returned source (which forwards to `inner`,
  /// not owned) into the same snapshot. One recorder per writer: a second call replaces it.
  KubeListSource& recordKubernetes(KubeListSource& inner);
  /// LISTs recorded so far (0 without recordKubernetes()).
  std::size_t recordedKubeLists() const { return kube_ ? kube_->recorded().size() : 0; }

  /// Records the Airflow fetches run through the returned source (which forwards to `inner`,
  /// not owned) into the same snapshot (airflow.json). One recorder per writer, like
  /// recordKubernetes().
  AirflowApi& recordAirflow(AirflowApi& inner);

 private:
  struct Recorded {
    ManifestQuery query;
    std::string body;
  };

  std::string unusedFileFor(const std::string& name) const;

  Result<void> writeTo(const std::string& dir, UnixSeconds at) const;
  Result<void> writeKubeLists(const std::string& dir, Manifest& manifest) const;

  MetricsSource& inner_;
  std::string dir_;
  SystemClock system_clock_;
  const Clock& clock_;
  std::vector<Recorded> recorded_;
  std::unique_ptr<KubeListRecorder> kube_;
  std::unique_ptr<AirflowRecorder> airflow_;
};

}  // namespace dagadvisor::sources
