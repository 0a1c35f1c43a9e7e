#pragma once

#include <vector>

#include "advice/recommendation.h"
#include "analysis/finding.h"
#include "config/config.h"
#include "model/cluster.h"

namespace dagadvisor::advice {

/// One recommendation for all gpu-node-hoarding findings of a cluster (one root cause: GPU
/// nodes are open to every pod): taint the GPU nodes, tolerate the taint from GPU workloads,
/// keep node-wide DaemonSets small. `findings` holds only that kind; empty in → empty out.
std::vector<Recommendation> adviseGpuNodeHoarding(
    const std::vector<const analysis::Finding*>& findings, const config::Config& config,
    const model::ClusterSnapshot& cluster);

}  // namespace dagadvisor::advice
