#include "advice/recommender.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>

#include "advice/kinds/gpu_node_hoarding.h"

namespace dagadvisor::advice {
namespace {

using Adviser = std::vector<Recommendation> (*)(const std::vector<const analysis::Finding*>&,
                                                const config::Config&);

// One line per recommendation kind; a finding kind without an adviser yields no advice.
const std::map<std::string, Adviser, std::less<>> kAdvisers = {
    {"gpu-node-hoarding", &adviseGpuNodeHoarding},
};

std::uint64_t fnv1a(const std::string& text, std::uint64_t hash = 1469598103934665603ULL) {
  for (unsigned char c : text) {
    hash = (hash ^ c) * 1099511628211ULL;
  }
  return hash;
}

}  // namespace

std::string stableId(const std::string& kind, const std::string& cluster,
                     const std::string& target) {
  const std::uint64_t hash = fnv1a(target, fnv1a(cluster + '\x1f', fnv1a(kind + '\x1f')));
  char hex[9];
  std::snprintf(hex, sizeof hex, "%08x", static_cast<unsigned>(hash >> 32));
  return kind + "-" + hex;
}

std::vector<Recommendation> recommend(const std::vector<analysis::Finding>& findings,
                                      const config::Config& config) {
  std::map<std::string, std::vector<const analysis::Finding*>> by_kind;
  for (const analysis::Finding& f : findings) {
    by_kind[f.kind].push_back(&f);
  }
  std::vector<Recommendation> out;
  for (const auto& [kind, group] : by_kind) {
    auto it = kAdvisers.find(kind);
    if (it == kAdvisers.end()) {
      continue;
    }
    for (Recommendation& rec : it->second(group, config)) {
      rec.id = stableId(rec.kind, config.analysis.cluster, rec.target);
      out.push_back(std::move(rec));
    }
  }
  std::sort(out.begin(), out.end(), [](const Recommendation& a, const Recommendation& b) {
    if (a.impact_score != b.impact_score) {
      return a.impact_score > b.impact_score;
    }
    return a.id < b.id;
  });
  return out;
}

void RecommendationHistory::stamp(std::vector<Recommendation>& recommendations, UnixSeconds now) {
  for (Recommendation& rec : recommendations) {
    auto [it, inserted] = first_seen_.try_emplace(rec.id, now);
    rec.first_seen = it->second;
    rec.last_seen = now;
  }
}

}  // namespace dagadvisor::advice
