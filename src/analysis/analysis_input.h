#pragma once

#include <vector>

#include "config/config.h"
#include "graph/run_graph.h"
#include "model/cluster.h"

namespace dagadvisor::analysis {

/// Everything a detector may read: one cycle's cluster, its runs with their graphs, and the
/// settings. Read-only; detectors keep nothing between cycles.
struct AnalysisInput {
  const model::ClusterSnapshot& cluster;
  const std::vector<graph::RunGraph>& runs;
  const config::Config& config;
};

}  // namespace dagadvisor::analysis
