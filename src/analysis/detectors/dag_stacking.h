#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/detector.h"
#include "analysis/evidence.h"
#include "config/field.h"

namespace dagadvisor::analysis {

/// A node of the stacked node's pool with CPU to spare, that could take some of its tasks.
struct StackIdlePeer {
  std::string node;
  std::int64_t free_cpu_millis = 0;
  double free_cpu_share = 0;
};

/// A nearly full node running several tasks of the run at once.
struct StackedNode {
  std::string node;
  std::optional<std::string> pool;    // none when the node has no pool label
  std::vector<std::string> task_ids;  // the run's tasks holding resources on it
  std::int64_t run_cpu_millis = 0;    // CPU those tasks request
  double node_cpu_requested_share = 0;
  std::size_t idle_peer_count = 0;        // every idle peer, listed or not
  std::vector<StackIdlePeer> idle_peers;  // the first few, most free CPU first

  std::size_t tasks() const { return task_ids.size(); }
};

/// Evidence of one run with tasks stacked on busy nodes while peers idle.
struct DagStackingEvidence {
  static constexpr std::string_view kKind = "dag-stacking";
  RunScope scope;
  std::string engine;
  std::size_t stacked_tasks = 0;
  std::vector<StackedNode> stacked_nodes;  // most tasks first

  nlohmann::json toJson() const;
};

/// The settings of dag-stacking: `detectors.dag_stacking` in the configuration file.
struct DagStackingSettings {
  static constexpr std::string_view kSection = "dag_stacking";

  bool enabled = true;
  int min_tasks_per_node = 4;
  double min_node_cpu_share = 0.8;
  double min_peer_free_cpu_share = 0.5;

  bool operator==(const DagStackingSettings&) const = default;
  /// This section's rows, each with its rule and what it means: the one place the
  /// settings are documented (the example file and docs/findings.md are checked against it).
  std::vector<config::Field> fields();
};

/// dag-stacking (seed §2.2): many tasks of one run running on one node at the analysis time,
/// that node nearly full, while another node of the same pool has CPU to spare. The tasks then
/// compete for one node's CPU, memory bandwidth and disk. One finding per run, with the
/// stacked nodes and the idle peers.
class DagStacking final : public Detector {
 public:
  using Settings = DagStackingSettings;

  const DetectorInfo& info() const override;
  void analyze(const AnalysisInput& input, FindingSink& out) const override;
};

}  // namespace dagadvisor::analysis
