#include "advice/kinds/finding_groups.h"

#include <algorithm>
#include <cstdio>

#include "advice/pod_owners.h"

namespace dagadvisor::advice {

FindingList byImpact(const FindingList& findings) {
  FindingList ranked = findings;
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto* a, const auto* b) { return a->impact > b->impact; });
  return ranked;
}

nlohmann::json cover(Recommendation& rec, const FindingList& findings) {
  for (const analysis::Finding* f : findings) {
    rec.severity = std::max(rec.severity, f->severity);
    rec.instances.push_back(f->target);
  }
  // Largest impact first: when the recommender bounds the list, what it keeps is what matters.
  nlohmann::json evidence = nlohmann::json::array();
  for (const analysis::Finding* f : byImpact(findings)) {
    evidence.push_back(evidence.size() < kEvidenceItems ? f->evidenceJson() : nullptr);
  }
  return evidence;
}

Labels labelsOf(const analysis::LabelPairs& selector) {
  std::map<std::string, std::string> sorted;
  for (const auto& [key, value] : selector) {
    sorted[key] = value;
  }
  return {sorted.begin(), sorted.end()};
}

std::string listKeys(const Labels& labels) {
  std::string out;
  for (std::size_t i = 0; i < labels.size(); ++i) {
    out += (i == 0 ? "" : i + 1 == labels.size() ? " and " : ", ") + labels[i].first;
  }
  return out;
}

std::string formatSeconds(double seconds) {
  char buf[32];
  if (seconds < 120) {
    std::snprintf(buf, sizeof buf, "%.0f s", seconds);
  } else if (seconds < 7200) {
    std::snprintf(buf, sizeof buf, "%.0f min", seconds / 60);
  } else {
    std::snprintf(buf, sizeof buf, "%.1f h", seconds / 3600);
  }
  return buf;
}

WorkloadRef workloadOf(const std::string& owner_kind, const std::string& owner_name) {
  if (owner_kind == "ReplicaSet") {
    if (auto deployment = deploymentOf(owner_name, "")) {
      return {"apps/v1", "Deployment", *deployment};
    }
  }
  if (owner_kind == "Deployment" || owner_kind == "ReplicaSet" || owner_kind == "StatefulSet" ||
      owner_kind == "DaemonSet") {
    return {"apps/v1", owner_kind, owner_name};
  }
  return {"", "", owner_name};
}

}  // namespace dagadvisor::advice
