#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "replay/replay.h"
#include "replay/replay_input.h"
#include "replay/scope.h"

namespace dagadvisor::prediction {

/// The figures a prediction compares, read off one replay.
struct ReplayMeasures {
  std::vector<double> run_makespan;  // by ReplayRunId
  std::vector<std::uint8_t> run_complete;
  /// Queue waits (arrival → bound) along each run's replayed critical chain: from its last task
  /// back through the parent that finished last, the wait that made the run later.
  std::vector<double> run_critical_wait;
  /// Arrival → bound of every pod the replay schedules (fixed pods 0); a pod never bound waits
  /// to the end of the replay.
  std::vector<double> pod_wait;
  /// The same wait counted within the observed window only (to its end for a pod still unbound
  /// then). What happens after the window is not observed: the replay's cluster then gets no new
  /// pods, so a pod pending at the window's end finds room sooner than it would among the pods
  /// that keep arriving, and its whole wait would understate the observed one.
  std::vector<double> pod_window_wait;
  /// GPUs held by pods over the observed window, as a share of the nodes' GPUs (0 without GPUs).
  double gpu_allocation = 0;
};

ReplayMeasures measureReplay(const replay::ReplayInput& input, const replay::ReplayResult& result);

/// `whole` (measured on the whole window) moved by what a change did to `scope`, measured on
/// the scope replayed alone before and after it: each pod's and run's figure by its paired
/// change, the GPU allocation by the scope's change scaled to the window's GPUs (`gpu_share`:
/// the scope's GPUs over the window's). The paired change is the prediction; the scope's own
/// baseline never stands in for the whole window's.
ReplayMeasures withScopedChange(const ReplayMeasures& whole, const replay::ReplayScope& scope,
                                const ReplayMeasures& scoped_before,
                                const ReplayMeasures& scoped_after, double gpu_share);

}  // namespace dagadvisor::prediction
