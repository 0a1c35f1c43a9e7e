#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "analysis/detector.h"
#include "config/field.h"

namespace dagadvisor::analysis {

/// Evidence of one DAG whose recent runs share a dominant task. Per DAG, not per run: the
/// namespace and DAG only, no RunScope.
struct ShardCandidateEvidence {
  static constexpr std::string_view kKind = "shard-candidate";
  std::string namespace_;
  std::string dag;
  std::string task;  // the task dominating every run's critical path
  std::size_t runs = 0;
  double median_task_seconds = 0;
  double median_critical_share = 0;  // of the critical path the task takes
  double median_makespan_seconds = 0;
  std::size_t idle_nodes = 0;  // nodes with room for a copy of the task now
  std::size_t chunks = 0;      // the task's own slot plus one per idle node
  double expected_saving_seconds = 0;

  double expectedMakespanSeconds() const {
    return median_makespan_seconds - expected_saving_seconds;
  }

  nlohmann::json toJson() const;
};

/// The settings of shard-candidate: `detectors.shard_candidate` in the configuration file.
struct ShardCandidateSettings {
  static constexpr std::string_view kSection = "shard_candidate";

  bool enabled = true;
  int min_runs = 3;
  double min_critical_share = 0.5;
  int min_idle_nodes = 2;
  int max_chunks = 8;

  bool operator==(const ShardCandidateSettings&) const = default;
  /// This section's rows, each with its rule and what it means: the one place the
  /// settings are documented (the example file and docs/findings.md are checked against it).
  std::vector<config::Field> fields();
};

/// shard-candidate (seed §4.1): one task dominating the critical path of every recent run of a
/// DAG while nodes could run copies of it in parallel. One finding per DAG.
class ShardCandidate final : public Detector {
 public:
  using Settings = ShardCandidateSettings;

  const DetectorInfo& info() const override;
  void analyze(const AnalysisInput& input, FindingSink& out) const override;
};

}  // namespace dagadvisor::analysis
