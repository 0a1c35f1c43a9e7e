#pragma once

#include <vector>

#include "advice/recommendation.h"
#include "analysis/finding.h"
#include "config/config.h"
#include "model/cluster.h"

namespace dagadvisor::advice {

/// One recommendation per DAG (namespace/dag) with dag-stacking findings (one root cause: the
/// DAG's pod template does not spread its tasks): a preferred pod anti-affinity, weight 100, on
/// the DAG label by kubernetes.io/hostname. `findings` holds only that kind; empty in → empty out.
std::vector<Recommendation> adviseDagStacking(const std::vector<const analysis::Finding*>& findings,
                                              const config::Config& config,
                                              const model::ClusterSnapshot& cluster);

}  // namespace dagadvisor::advice
