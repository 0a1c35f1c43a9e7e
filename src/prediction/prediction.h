#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "analysis/transfer_prices.h"
#include "common/result.h"
#include "graph/run_graph.h"
#include "model/cluster.h"
#include "prediction/replay_measures.h"
#include "replay/calibration.h"
#include "replay/change_set.h"
#include "replay/replay.h"

// A prediction replays the observed window twice per perturbation of the run times, once as it
// was and once with a recommendation's changes, and reports replayed-after against
// replayed-before of the same perturbation: never against what was observed, which the
// calibration compares with the unchanged replay instead (docs/whatif.md, "Predictions").
namespace dagadvisor::prediction {

/// One figure before and after a change: each side the median over the perturbed replays, and
/// the range of the paired change (after − before of the same perturbation).
struct BeforeAfter {
  double before = 0;
  double after = 0;
  double change_low = 0;
  double change_high = 0;

  double change() const { return after - before; }
};

/// One run whose replay the change alters.
struct RunPrediction {
  std::string run;  // namespace/dag/run
  BeforeAfter makespan_seconds;
  bool complete_before = false;  // every task finished in the unperturbed replay
  bool complete_after = false;
  /// The run had finished by the window's end. Else the replay holds the tasks it had created by
  /// then (and those a finished run of its DAG had after them, replay/run_completion.h), some
  /// with a lower bound for a run time (replay::RunTimeBasis): the rest of the run is not seen,
  /// so its makespans are the replay's alone.
  bool finished_in_window = false;
};

/// What a prediction replayed: the part of the window its change can reach (replay/scope.h),
/// or the whole window when the change reaches every node.
struct PredictionReach {
  bool whole = true;
  std::size_t nodes = 0;
  std::size_t pods = 0;
  std::size_t runs = 0;
};

/// The tasks with parents a change places (those its changes edit), and how many of them the
/// replay charges hand-offs for (measured prices per GB, or the task's measured crossing): the
/// others keep their observed transfer time wherever the replay puts them, so what moving them
/// nearer to or farther from their parents would change is not in the figures.
struct HandOffCoverage {
  std::size_t tasks = 0;
  std::size_t charged = 0;
};

struct Prediction {
  bool replayed = false;
  std::string not_replayed;          // why not, when !replayed
  std::size_t replays = 0;           // paired replays behind each figure
  std::vector<std::size_t> matched;  // objects each change edited, in the change set's order
  PredictionReach reach;
  HandOffCoverage hand_offs;
  /// Runs whose makespan the change alters in any replay (by more than a second).
  std::size_t affected_runs = 0;
  BeforeAfter makespan_seconds;            // mean over the affected runs
  BeforeAfter critical_path_wait_seconds;  // summed over the affected runs
  std::size_t watched_pods = 0;            // the recommendation's own pods found in the replay
  BeforeAfter watched_pending_seconds;     // their mean wait for a node within the window
  BeforeAfter gpu_pod_pending_seconds;     // mean wait in the window of the pods that request GPUs
  BeforeAfter gpu_allocation;              // GPUs held over the window / the nodes' GPUs
  std::vector<RunPrediction> runs;         // the affected runs, largest gain first, bounded
};

/// Slower in every replay (the affected runs' makespan up in each perturbation), with none of
/// the figures a change can be worth a slowdown for better in every replay (the GPU pods' wait,
/// the wait of the pods it is about, the GPU allocation): advice its own prediction shows to
/// cost, which is not applied with the rest.
bool reliablyHarmful(const Prediction& p);

struct PredictionOptions {
  std::uint32_t replays = 5;     // perturbations; the first is the observed run times
  double run_time_spread = 0.1;  // each replayed run time × U[1 − spread, 1 + spread]
  std::size_t runs_listed = 10;
  /// The node label naming the zone (cluster_labels.zone): where the DAG's runs measured what
  /// a crossing costs a task, the replay charges it by where it puts the task and its parents.
  std::string zone_label = "topology.kubernetes.io/zone";
};

/// The window prepared once per cycle: the replay input with its perturbations, the profile
/// fitted to the observation, and the unchanged replays every prediction compares with.
class PredictionContext {
 public:
  static Result<PredictionContext> build(const model::ClusterSnapshot& cluster,
                                         const std::vector<graph::RunGraph>& graphs,
                                         const PredictionOptions& options = {});
  /// The same from a replay input already built (and its scheduler latency estimated).
  static Result<PredictionContext> fromInput(const replay::ReplayInput& input,
                                             const PredictionOptions& options = {});

  const replay::CalibrationReport& calibration() const { return calibration_; }
  const replay::SchedulerProfile& profile() const { return profile_; }
  /// What a hand-off costs by where the parent ran, as the window's received bytes measured it
  /// (charged by the replay when both prices are measured); none from a bare input.
  const analysis::TransferPrices& transferPrices() const { return transfer_prices_; }
  std::size_t pods() const { return inputs_.front().pods.size(); }
  /// The window replayed: the first task pod's creation to the snapshot time.
  std::pair<UnixSeconds, UnixSeconds> window() const {
    return {inputs_.front().window_start, inputs_.front().window_end};
  }

  /// What `changes` would have done to the window; `watched` ("namespace/name") are the pods the
  /// recommendation is about. A set that matches nothing of the replay is not replayed, and says
  /// which change. Only the part of the window the changes can reach is replayed again (both
  /// sides, each perturbation); the rest keeps its unchanged replay.
  Prediction predict(const replay::ChangeSet& changes,
                     const std::vector<std::string>& watched = {}) const;

  /// The tasks with parents `changes` edit, and those of them whose hand-offs the replay
  /// charges: where it charges none, placing tasks nearer their parents changes nothing the
  /// replay sees, whatever it would gain in the cluster.
  HandOffCoverage handOffCoverage(const replay::ChangeSet& changes) const;

 private:
  /// Perturbation `k` with the changes (`changed`: perturbation 0 with them applied), replayed
  /// over `scope` and measured over the whole window.
  Result<ReplayMeasures> replayChanged(std::size_t k, const replay::ReplayInput& changed,
                                       const replay::ReplayScope& scope) const;

  PredictionOptions options_;
  replay::SchedulerProfile profile_;
  replay::CalibrationReport calibration_;
  analysis::TransferPrices transfer_prices_;
  std::vector<replay::ReplayInput> inputs_;  // by perturbation
  std::vector<ReplayMeasures> before_;       // by perturbation
  double gpu_capacity_ = 0;                  // GPUs of every node of the window
};

}  // namespace dagadvisor::prediction
