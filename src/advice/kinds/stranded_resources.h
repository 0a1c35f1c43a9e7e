#pragma once

#include <vector>

#include "advice/recommendation.h"
#include "analysis/finding.h"
#include "config/config.h"
#include "model/cluster.h"

namespace dagadvisor::advice {

/// One recommendation for all stranded-resources findings of a cluster (one root cause: pod
/// shapes and node shapes do not match): rebalance pools, reshape pods, deschedule from the
/// stranded nodes. No patch applies. `findings` holds only that kind; empty in → empty out.
std::vector<Recommendation> adviseStrandedResources(
    const std::vector<const analysis::Finding*>& findings, const config::Config& config,
    const model::ClusterSnapshot& cluster);

}  // namespace dagadvisor::advice
