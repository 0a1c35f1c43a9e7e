#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "common/result.h"
#include "replay/replay.h"
#include "replay/replay_input.h"

namespace dagadvisor::replay {

/// One run: its observed makespan next to the unchanged replay's.
struct RunCalibration {
  std::string run;
  bool observed_finished = false;
  bool replayed_complete = false;
  double observed_makespan = 0;
  double replayed_makespan = 0;
  /// |replayed − observed| / observed; 0 when the observed makespan is 0.
  double relative_error = 0;
};

/// How well a replay without change reproduces the window: the error distribution over the
/// runs that finished in the observation (the only ones with a makespan to compare against).
/// A gain predicted by the replay is after − before, both replayed; this says how far "before"
/// is from what happened.
struct CalibrationReport {
  std::vector<RunCalibration> runs;  // every run, in input order
  std::size_t finished_runs = 0;     // observed finished and replayed complete: the compared ones
  double median_error = 0;
  double p90_error = 0;
  double mean_error = 0;
  double max_error = 0;
  /// The pods that request GPUs and are scheduled anew: their mean wait within the window
  /// (created → bound, or → the window's end for a pod unbound then), as observed and as the
  /// unchanged replay has it. The GPU pods' predicted wait is replayed after − replayed before,
  /// so this says how far "before" is from what they waited.
  std::size_t gpu_pods = 0;
  double observed_gpu_pod_wait = 0;
  double replayed_gpu_pod_wait = 0;
};

/// Compares `result` (a replay of `input` without change) with the observation.
CalibrationReport calibrate(const ReplayInput& input, const ReplayResult& result);

/// Replays `input` without change under `profile` and compares.
Result<CalibrationReport> calibrate(const ReplayInput& input, const SchedulerProfile& profile = {});

/// A profile fitted to the window, and how well it reproduces it.
struct FittedProfile {
  SchedulerProfile profile;
  CalibrationReport calibration;
};

/// `base` with the queue order that reproduces the window best (lower median error, then
/// lower p90, then lower mean; kube-scheduler's own rule on a tie). Two replays. The order decides
/// who gets room first under contention and is the one choice the observation can settle: a real
/// kube-scheduler refreshes the queue timestamp of a pod it retries, a simulator or another
/// scheduler may not.
Result<FittedProfile> fitQueueOrder(const ReplayInput& input, SchedulerProfile base = {});

}  // namespace dagadvisor::replay
