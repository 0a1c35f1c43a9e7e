#pragma once

#include <memory>
#include <string>

#include "sources/airflow/airflow_source.h"
#include "sources/kubernetes/kube_list_source.h"
#include "sources/metrics_source.h"
#include "sources/snapshot/snapshot_format.h"

namespace dagadvisor::sources {

/// MetricsSource replaying a recorded snapshot directory (manifest.json + one raw body per
/// query), for offline analysis, bug reports and fixtures. The `at` of a query is ignored: the
/// data is what was recorded at analysisTime().
class SnapshotSource final : public MetricsSource {
 public:
  /// Reads and validates `dir`/manifest.json; the Error's field names the faulty manifest field.
  static Result<std::unique_ptr<SnapshotSource>> open(const std::string& dir);

  /// The recorded body of `query.name`. Errors when the name was not recorded, or was recorded
  /// with another PromQL text (the snapshot is then stale and must be re-recorded).
  Result<QueryBody> instantQuery(const Query& query, UnixSeconds at) override;

  /// "snapshot <dir> (recorded from <source>)".
  std::string describe() const override;

  /// Wall-clock time the snapshot was written.
  UnixSeconds recordedAt() const { return manifest_.recorded_at; }
  /// The analysis time the queries were evaluated at; the default `--at` of a replay.
  UnixSeconds analysisTime() const { return manifest_.at; }
  const Manifest& manifest() const { return manifest_; }

  /// The recorded Kubernetes LISTs as a KubeListSource (independent of this object), or nullptr
  /// when the snapshot has no Kubernetes part. A LIST that was not recorded is an Error naming
  /// the recorded ones.
  KubeListSourcePtr kubernetes() const;

  /// The recorded Airflow fetches as an AirflowApi replay (independent of this object), or
  /// nullptr when the snapshot has no Airflow part. Errors: airflow.json unreadable or damaged.
  Result<std::unique_ptr<AirflowApi>> airflow() const;

 private:
  SnapshotSource(std::string dir, Manifest manifest);
  std::string recordedNames() const;

  std::string dir_;
  Manifest manifest_;
};

}  // namespace dagadvisor::sources
