// Live mode: serves the simulated cluster on /metrics for a real Prometheus to scrape.
#pragma once

#include <string>

#include "patches.h"
#include "scenario.h"

namespace dagadvisor::sim {

/// Simulates the scenario with the advice applied, then serves /metrics at `listen` (host:port);
/// simulated time runs `speed` times faster than the wall clock from the scenario's window start.
/// With `native_histograms` the scheduler's SLI histograms leave /metrics for /metrics/native, as
/// native histograms in the protobuf format. Blocks until SIGINT/SIGTERM. Returns the process
/// exit code.
int serve(const Scenario& scenario, const Advice& advice, const std::string& listen, double speed,
          bool native_histograms);

}  // namespace dagadvisor::sim
