#pragma once

#include <vector>

#include "advice/recommendation.h"
#include "analysis/finding.h"
#include "config/config.h"

namespace dagadvisor::advice {

/// One recommendation per DAG (namespace/dag) with split-dependencies findings (one root cause:
/// the DAG's pod template asks for no locality): a preferred pod affinity, weight 100, to the
/// pods of the same run in the same zone. `findings` holds only that kind; empty in → empty out.
std::vector<Recommendation> adviseSplitDependencies(
    const std::vector<const analysis::Finding*>& findings, const config::Config& config);

}  // namespace dagadvisor::advice
