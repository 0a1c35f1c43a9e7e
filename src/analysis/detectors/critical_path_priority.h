#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/detector.h"
#include "analysis/detectors/preemption_exposure.h"
#include "analysis/evidence.h"
#include "config/field.h"

namespace dagadvisor::analysis {

/// A pending task of a run, with its pod and its slack on the run's remaining work.
struct PendingPathTask {
  std::string run;  // the run's id, "<namespace>/<dag>/<run>"
  std::string task;
  std::string namespace_;
  std::string pod;
  std::string owner_kind;
  std::string owner_name;
  std::string priority_class;  // "" when the pod has none
  double slack_seconds = 0;
  std::optional<double> waiting_seconds;  // since the pod was created, when known
};

/// Evidence of one run whose critical pending tasks queue at the priority of slack-rich work.
struct CriticalPathPriorityEvidence {
  static constexpr std::string_view kKind = "critical-path-priority";
  RunScope scope;
  std::vector<PendingPathTask> critical_tasks;
  double critical_waiting_seconds = 0;  // the critical tasks' waiting_seconds, summed
  std::size_t slack_rich_pending = 0;   // slack-rich pending tasks of the critical tasks' classes
  std::vector<PendingPathTask> slack_rich_examples;  // the first few of them
  /// What the critical tasks' PriorityClass could preempt, and whether that is acceptable:
  /// the advice's preemptionPolicy (Never unless it is).
  PreemptionExposure preemption;

  nlohmann::json toJson() const;
};

/// The settings of critical-path-priority: `detectors.critical_path_priority` in the configuration
/// file.
struct CriticalPathPrioritySettings {
  static constexpr std::string_view kSection = "critical_path_priority";

  bool enabled = true;
  config::Seconds max_critical_slack{0};
  config::Seconds min_rich_slack{300};
  std::string priority_class = "dag-critical-path";
  int priority_value = 100000;

  bool operator==(const CriticalPathPrioritySettings&) const = default;
  /// This section's rows, each with its rule and what it means: the one place the
  /// settings are documented (the example file and docs/findings.md are checked against it).
  std::vector<config::Field> fields();
};

/// critical-path-priority (seed §1, §2.3): pending tasks on the critical path of their run's
/// remaining work that wait with no higher PriorityClass than pending tasks with plenty of slack.
/// One finding per run, with its critical pending tasks and the slack-rich work they queue with.
class CriticalPathPriority final : public Detector {
 public:
  using Settings = CriticalPathPrioritySettings;

  const DetectorInfo& info() const override;
  void analyze(const AnalysisInput& input, FindingSink& out) const override;
};

}  // namespace dagadvisor::analysis
