#pragma once

#include <cstddef>
#include <string>
#include <unordered_map>
#include <vector>

#include "advice/recommendation.h"
#include "analysis/finding.h"
#include "config/config.h"
#include "model/cluster.h"

namespace dagadvisor::advice {

/// Turns a cycle's findings into recommendations: one per root cause, each with a stable id,
/// ranked by impact (largest first, then by id for a deterministic order), its patch_yaml
/// rendered from its patches. `cluster` is the snapshot the findings come from: the patches name
/// its objects and pods. first_seen/last_seen are left for RecommendationHistory.
std::vector<Recommendation> recommend(const std::vector<analysis::Finding>& findings,
                                      const config::Config& config,
                                      const model::ClusterSnapshot& cluster);

/// The same for findings without their snapshot (tests built from evidence alone): the patches
/// name only what the evidence names.
std::vector<Recommendation> recommend(const std::vector<analysis::Finding>& findings,
                                      const config::Config& config);

/// "<kind>-<8 hex digits>" from the kind and scope; the same problem keeps its id forever.
std::string stableId(const std::string& kind, const std::string& cluster,
                     const std::string& target);

/// Remembers when each recommendation id was first seen, across the cycles of one daemon.
class RecommendationHistory {
 public:
  void stamp(std::vector<Recommendation>& recommendations, UnixSeconds now);

 private:
  std::unordered_map<std::string, UnixSeconds> first_seen_;
};

}  // namespace dagadvisor::advice
