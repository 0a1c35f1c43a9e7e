#pragma once

#include <cstdio>
#include <string>

#include "replay/calibration.h"

namespace dagadvisor::testing {

/// Prints the calibration distribution of one scenario, and with `runs` each finished run with an
/// error above 10 %, to the test output: the figures the calibration is judged by.
inline void printCalibration(const std::string& scenario, const replay::CalibrationReport& c,
                             bool runs = true) {
  std::printf(
      "replay calibration, scenario %-36s finished runs %4zu  makespan error median %5.1f %%  "
      "p90 %5.1f %%  max %5.1f %%\n",
      scenario.c_str(), c.finished_runs, 100 * c.median_error, 100 * c.p90_error,
      100 * c.max_error);
  if (c.gpu_pods > 0) {
    std::printf("  %zu GPU pod(s), mean wait in the window: observed %8.0f s  replayed %8.0f s\n",
                c.gpu_pods, c.observed_gpu_pod_wait, c.replayed_gpu_pod_wait);
  }
  for (const replay::RunCalibration& r : c.runs) {
    if (runs && r.observed_finished && r.relative_error > 0.10) {
      std::printf("  %-50s observed %8.0f s  replayed %8.0f s  (%+.1f %%)\n", r.run.c_str(),
                  r.observed_makespan, r.replayed_makespan,
                  100 * (r.replayed_makespan - r.observed_makespan) / r.observed_makespan);
    }
  }
}

}  // namespace dagadvisor::testing
