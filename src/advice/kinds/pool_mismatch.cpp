#include "advice/kinds/pool_mismatch.h"

#include <algorithm>
#include <map>

#include "advice/engine_patch.h"
#include "advice/kinds/finding_groups.h"
#include "advice/patch_yaml.h"
#include "analysis/detectors/pool_mismatch.h"

namespace dagadvisor::advice {
namespace {

using analysis::PoolMismatchEvidence;
using nlohmann::json;

struct TargetPool {
  const analysis::SuggestedPool* pool = nullptr;
  std::vector<std::string> workloads;
  std::vector<PodOwner> owners;
};

std::vector<std::pair<std::string, std::string>> patches(
    const std::map<std::string, TargetPool>& pools, const std::string& label) {
  std::vector<std::pair<std::string, std::string>> docs;
  for (const auto& [name, target] : pools) {
    if (!target.pool->labelled) {
      for (const std::string& node : target.pool->nodes) {
        docs.emplace_back(labelCommand(node, {{label, name}}) + " (inferred pool " + name +
                              "), or kubectl patch node " + node +
                              " --patch-file <this document> (adds the label, keeps the others)",
                          nodeLabelsPatch(node, {{label, name}}));
      }
    }
    // A nodeSelector is required and ANDed with the pods' other constraints; a new
    // nodeSelectorTerm would be ORed with theirs and restrict nothing.
    for (const PodOwner& owner : target.owners) {
      const CommentedDocs set = podChangeDocs(
          owner, PodField::kNodeSelector, "require " + label + "=" + name,
          [&](const PodSpecSite& site) { return nodeSelectorPatches(site.path, label, name); });
      docs.insert(docs.end(), set.begin(), set.end());
    }
  }
  return docs;
}

}  // namespace

std::vector<Recommendation> advisePoolMismatch(const FindingList& findings,
                                               const config::Config& config) {
  if (findings.empty()) {
    return {};
  }
  const std::string& label = config.cluster_labels.pool;
  Recommendation rec;
  rec.kind = std::string(PoolMismatchEvidence::kKind);
  rec.target = "cluster/" + config.analysis.cluster;
  const json workloads = cover(rec, findings);
  std::map<std::string, TargetPool> pools;
  std::size_t pods = 0;
  bool inferred = false;
  for (const analysis::Finding* f : byImpact(findings)) {
    const auto& w = f->evidenceAs<PoolMismatchEvidence>();
    TargetPool& target = pools[w.suggested_pool.name];
    target.pool = &w.suggested_pool;
    target.workloads.push_back(w.namespace_ + "/" + w.owner_kind + "/" + w.owner_name);
    target.owners.push_back({"", w.namespace_, w.owner_kind, w.owner_name});
    pods += w.pods.size();
    inferred = inferred || !w.suggested_pool.labelled;
  }
  rec.title = std::to_string(findings.size()) + " workload(s) with " + std::to_string(pods) +
              " pod(s) run on a pool that does not fit their CPU:memory shape";
  rec.action = std::string(inferred ? "Label the nodes of each inferred pool " + label +
                                          "=<pool> (Node patches below), then g"
                                    : "G") +
               "ive each listed workload a required nodeSelector " + label +
               " for the pool its shape fits, so memory-heavy pods stop stranding CPU on "
               "compute nodes and CPU-heavy pods stop stranding memory.";
  rec.patch_yaml = joinDocuments(patches(pools, label));
  rec.impact_score = static_cast<double>(pods);
  rec.impact = std::to_string(pods) + " pod(s) move to the pool their shape fits";
  rec.evidence = {{"workloads", workloads}, {"pods", pods}};
  return {std::move(rec)};
}

}  // namespace dagadvisor::advice
