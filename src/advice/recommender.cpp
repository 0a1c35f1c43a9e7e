#include "advice/recommender.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string_view>
#include <vector>

#include "advice/kind_list.h"
#include "advice/patch_yaml.h"
#include "common/fnv1a.h"

namespace dagadvisor::advice {
namespace {

// A recommendation covering 70 runs would otherwise carry every run's edges (80 KB of JSON
// for one DAG): unreadable on the page and the bulk of every API response. Its lists keep their
// first kEvidenceItems entries (advisers list the largest impact first) and say how many there
// were; every finding stays whole in /api/v1/findings.
void boundEvidenceLists(nlohmann::json& evidence) {
  if (!evidence.is_object()) {
    return;
  }
  std::vector<std::pair<std::string, std::size_t>> totals;
  for (auto& [key, value] : evidence.items()) {
    if (value.is_array() && value.size() > kEvidenceItems) {
      totals.emplace_back(key + "_total", value.size());
      value.erase(value.begin() + static_cast<std::ptrdiff_t>(kEvidenceItems), value.end());
    }
  }
  for (const auto& [key, total] : totals) {
    evidence.emplace(key, total);
  }
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
  return recommend(findings, config, model::ClusterSnapshot(0, {}, {}));
}

std::vector<Recommendation> recommend(const std::vector<analysis::Finding>& findings,
                                      const config::Config& config,
                                      const model::ClusterSnapshot& cluster) {
  std::vector<Recommendation> out;
  std::map<std::string_view, std::size_t> priority;
  for (const KindSpec& spec : kindList()) {
    std::vector<const analysis::Finding*> group;
    for (const analysis::Finding& f : findings) {
      if (f.kind == spec.kind) {
        group.push_back(&f);
      }
    }
    priority[spec.kind] = priority.size();
    for (Recommendation& rec : spec.advise(group, config, cluster)) {
      rec.id = stableId(rec.kind, config.analysis.cluster, rec.target);
      rec.patch_yaml = renderPatchYaml(rec.patches);
      boundEvidenceLists(rec.evidence);
      out.push_back(std::move(rec));
    }
  }
  std::sort(out.begin(), out.end(), [&](const Recommendation& a, const Recommendation& b) {
    if (a.severity != b.severity) {
      return a.severity > b.severity;
    }
    if (a.kind != b.kind) {
      return priority[a.kind] < priority[b.kind];
    }
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
