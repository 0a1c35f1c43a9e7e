#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "sources/airflow/airflow_source.h"

namespace dagadvisor::sources {

/// The file of a snapshot directory that holds what the Airflow source read.
inline constexpr std::string_view kAirflowFile = "airflow.json";

/// An AirflowApi decorator that keeps what its fetches read (task-list bodies verbatim, task
/// instances, warnings), merged over the fetches, for a SnapshotWriter to write. A failed fetch
/// is not kept: its runs replay as not recorded.
class AirflowRecorder final : public AirflowApi {
 public:
  /// Records the fetches of `inner` (not owned; must outlive the recorder).
  explicit AirflowRecorder(AirflowApi& inner) : inner_(inner) {}

  Result<AirflowFetch> fetch(const std::vector<AirflowRunRef>& wanted) override;
  std::string describe() const override { return inner_.describe(); }

  /// Everything recorded so far (dags and runs sorted, a later read of one replacing it).
  const AirflowFetch& recorded() const { return recorded_; }
  bool empty() const { return recorded_.dags.empty() && recorded_.runs.empty(); }

 private:
  AirflowApi& inner_;
  AirflowFetch recorded_;
};

/// airflow.json: {"api_version":…,"dags":[{"dag_id","tasks_body"}],"runs":[{"dag_id","run_id",
/// "task_instances":[…]}],"warnings":[…]} (invalid UTF-8 is replaced, never thrown on).
std::string renderAirflowRecording(const AirflowFetch& recorded);

/// Parses airflow.json; the Error's field names the faulty JSON path.
Result<AirflowFetch> parseAirflowRecording(std::string_view text);

/// Replays a recording: a fetch returns the recorded task lists and runs among `wanted`, a
/// wanted run that was not recorded is a warning, and no request is made.
class AirflowReplay final : public AirflowApi {
 public:
  AirflowReplay(AirflowFetch recorded, std::string description)
      : recorded_(std::move(recorded)), description_(std::move(description)) {}

  Result<AirflowFetch> fetch(const std::vector<AirflowRunRef>& wanted) override;
  std::string describe() const override { return description_; }

 private:
  AirflowFetch recorded_;
  std::string description_;
};

}  // namespace dagadvisor::sources
