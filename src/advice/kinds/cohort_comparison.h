#pragma once

#include <vector>

#include "advice/recommendation.h"
#include "analysis/finding.h"
#include "config/config.h"
#include "model/cluster.h"

namespace dagadvisor::advice {

/// Recommendations for the cohort-comparison findings of one cycle (only that kind); empty in →
/// empty out.
std::vector<Recommendation> adviseCohortComparison(
    const std::vector<const analysis::Finding*>& findings, const config::Config& config,
    const model::ClusterSnapshot& cluster);

}  // namespace dagadvisor::advice
