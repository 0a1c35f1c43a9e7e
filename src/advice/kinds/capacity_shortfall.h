#pragma once

#include <vector>

#include "advice/recommendation.h"
#include "analysis/finding.h"
#include "config/config.h"
#include "model/cluster.h"

namespace dagadvisor::advice {

/// One recommendation per capacity-shortfall finding (one per cluster): add nodes of the shapes
/// the packing estimate names (node group / autoscaler / spot pool), with its lower bound, or
/// queue urgent work first (preemptionPolicy: Never); says which recommendations cover the
/// other pending pods. No patch applies. `findings` holds only that kind; empty in → empty out.
std::vector<Recommendation> adviseCapacityShortfall(
    const std::vector<const analysis::Finding*>& findings, const config::Config& config,
    const model::ClusterSnapshot& cluster);

}  // namespace dagadvisor::advice
