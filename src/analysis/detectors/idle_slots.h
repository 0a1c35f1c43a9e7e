#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/detector.h"
#include "analysis/evidence.h"
#include "config/field.h"
#include "graph/whatif_reading.h"
#include "model/cluster.h"

namespace dagadvisor::analysis {

/// A ready task (every parent finished) pending while nodes have room for it.
struct IdleReadyTask {
  std::string task;
  std::string namespace_;
  std::string pod;
  double ready_wait_seconds = 0;  // since its last parent finished (or it was created)
  model::ResourceVector requests;
  std::vector<std::string> nodes_with_room;  // the first few schedulable nodes it fits on
};

/// Evidence of one run with ready tasks pending beside free room.
struct IdleSlotsEvidence {
  static constexpr std::string_view kKind = "idle-slots";
  RunScope scope;
  std::vector<IdleReadyTask> ready_tasks;
  double lost_slot_seconds = 0;  // the ready tasks' waits, summed
  double makespan_seconds = 0;   // the run's time so far: a run with ready tasks is unfinished
  std::optional<double> whatif_makespan_seconds;  // the HEFT what-if's, when computed
  /// The what-if read against the run (graph::readWhatIf): a gain only where it is one.
  std::optional<graph::WhatIfReading> whatif;

  nlohmann::json toJson() const;
};

/// The settings of idle-slots: `detectors.idle_slots` in the configuration file.
struct IdleSlotsSettings {
  static constexpr std::string_view kSection = "idle_slots";

  bool enabled = true;
  config::Seconds min_ready_wait{60};

  bool operator==(const IdleSlotsSettings&) const = default;
  /// This section's rows, each with its rule and what it means: the one place the
  /// settings are documented (the example file and docs/findings.md are checked against it).
  std::vector<config::Field> fields();
};

/// idle-slots (seed §2.3, HEFT insertion): ready tasks (all parents finished) pending while a
/// schedulable node has room for them now. One finding per run, with the time lost.
class IdleSlots final : public Detector {
 public:
  using Settings = IdleSlotsSettings;

  const DetectorInfo& info() const override;
  void analyze(const AnalysisInput& input, FindingSink& out) const override;
};

}  // namespace dagadvisor::analysis
