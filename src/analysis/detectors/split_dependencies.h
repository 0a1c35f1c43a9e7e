#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/detector.h"
#include "analysis/evidence.h"
#include "config/field.h"

namespace dagadvisor::analysis {

/// A parent → child edge whose pods ran on different nodes: one of the costliest few of a run.
struct ListedSplitEdge {
  std::string parent;  // task ids
  std::string child;
  std::string parent_node;
  std::string child_node;
  std::optional<std::string> parent_zone;  // none when the node carries no zone label
  std::optional<std::string> child_zone;
  double transfer_seconds = 0;  // modelled
  bool critical = false;        // the edge is a step of the run's critical path
};

/// One task of a run whose parent ran in another zone, with what the DAG's runs show such a
/// crossing costs it (transfer_measurement.h).
struct ListedCrossingTask {
  std::string task;
  std::size_t in_zone_runs = 0;     // finished runs with every parent in its zone
  std::size_t cross_zone_runs = 0;  // finished runs with a parent in another zone
  double shift_seconds = 0;         // Hodges-Lehmann, cross-zone minus in-zone run time
  double p_value = 1;               // one-sided Mann-Whitney
  double cost_seconds = 0;          // shift when significant and positive, else 0
};

/// Whether a transfer figure rests on the runs' own timings or only on the configured model.
enum class TransferBasis { kMeasured, kPartlyMeasured, kModelled };

/// "measured", "partly_measured" or "modelled": the word the evidence and summaries use.
std::string_view transferBasisName(TransferBasis basis);

/// Evidence of one run whose dependency edges are split across nodes or zones.
struct SplitDependenciesEvidence {
  static constexpr std::string_view kKind = "split-dependencies";
  RunScope scope;  // its engine says where the advice writes
  std::size_t edges = 0;
  std::size_t unplaced_edges = 0;  // a pod of the edge has no node
  std::size_t same_node_edges = 0;
  std::size_t same_zone_split_edges = 0;  // different nodes, same zone
  std::size_t cross_zone_edges = 0;
  std::size_t zone_unknown_edges = 0;  // different nodes, a zone not known
  /// Split edges whose parent had finished before the child was scheduled: no pod affinity can
  /// pull the child to them (the scheduler does not see finished pods).
  std::size_t sequential_split_edges = 0;
  std::size_t inferred_split_edges = 0;  // split edges guessed from timing, not declared
  double split_share = 0;                // split_node_edges / placed_edges
  /// The configured transfer model (analysis.transfer) applied to the split edges: modelled.
  double modelled_transfer_seconds = 0;
  std::size_t critical_path_split_edges = 0;
  double critical_path_modelled_transfer_seconds = 0;
  /// Tasks with a parent in another zone, those the DAG's runs measure, those measured slower.
  std::size_t cross_zone_tasks = 0;
  std::size_t measured_tasks = 0;
  std::size_t slowed_tasks = 0;
  /// Σ cost_seconds over the measured tasks: the slowdown the runs show, measured.
  double measured_transfer_seconds = 0;
  TransferBasis basis = TransferBasis::kModelled;  // of the cross-zone figure
  /// Where the cluster's received bytes priced hand-offs (analysis/transfer_prices.h): the
  /// edges across zones whose child's received bytes are known, and what crossing cost them
  /// beyond a hand-off within the zone (their share of the bytes × the difference of the two
  /// prices): what keeping each pair in one zone saves, measured from this run's own bytes.
  std::size_t priced_cross_zone_edges = 0;
  double priced_crossing_seconds = 0;
  std::vector<ListedSplitEdge> split_edges;        // the costliest few, costliest first
  std::vector<ListedCrossingTask> crossing_tasks;  // the few most measured-costly

  std::size_t placedEdges() const { return edges - unplaced_edges; }
  /// Edges whose pods ran on different nodes, whatever their zones.
  std::size_t splitNodeEdges() const {
    return same_zone_split_edges + cross_zone_edges + zone_unknown_edges;
  }

  nlohmann::json toJson() const;
};

/// The settings of split-dependencies: `detectors.split_dependencies` in the configuration file.
struct SplitDependenciesSettings {
  static constexpr std::string_view kSection = "split_dependencies";

  bool enabled = true;
  int min_split_edges = 2;
  double min_split_share = 0.5;
  int min_cross_zone_edges = 2;
  config::Seconds min_run_transfer{45};

  bool operator==(const SplitDependenciesSettings&) const = default;
  /// This section's rows, each with its rule and what it means: the one place the
  /// settings are documented (the example file and docs/findings.md are checked against it).
  std::vector<config::Field> fields();
};

/// split-dependencies (seed §1, §2.2): parent → child edges of a run whose pods ran on different
/// nodes, and above all in different zones, so the child must fetch the parent's output over the
/// network. One finding per run, with the split counts, the transfer time the configured cost
/// model gives (modelled) and the slowdown the DAG's runs show when a parent ran in another zone
/// (measured). A warning only when the measured slowdown reaches min_run_transfer; info when the
/// cost is modelled only.
class SplitDependencies final : public Detector {
 public:
  using Settings = SplitDependenciesSettings;

  const DetectorInfo& info() const override;
  void analyze(const AnalysisInput& input, FindingSink& out) const override;
};

}  // namespace dagadvisor::analysis
