#pragma once

#include <vector>

#include "advice/recommendation.h"
#include "analysis/finding.h"
#include "config/config.h"
#include "model/cluster.h"

namespace dagadvisor::advice {

/// One recommendation per DAG (namespace/dag) with split-dependencies findings (one root cause:
/// the DAG's pods ask for no locality): a preferred node affinity to one zone chosen per run
/// (covers sequential edges, whose parent has finished), in the engine's own templating, and a
/// static pod affinity with matchLabelKeys on the run label for tasks running side by side.
/// Every figure says whether it is measured or modelled. Empty in → empty out.
std::vector<Recommendation> adviseSplitDependencies(
    const std::vector<const analysis::Finding*>& findings, const config::Config& config,
    const model::ClusterSnapshot& cluster);

}  // namespace dagadvisor::advice
