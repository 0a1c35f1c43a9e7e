#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "replay/replay.h"
#include "replay/replay_input.h"

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
  /// GPUs held by pods over the observed window, as a share of the nodes' GPUs (0 without GPUs).
  double gpu_allocation = 0;
};

ReplayMeasures measureReplay(const replay::ReplayInput& input, const replay::ReplayResult& result);

}  // namespace dagadvisor::prediction
