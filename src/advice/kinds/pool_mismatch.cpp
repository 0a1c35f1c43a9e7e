#include "advice/kinds/pool_mismatch.h"

#include <algorithm>
#include <map>

#include "advice/engine_patch.h"
#include "advice/kinds/finding_groups.h"
#include "advice/patch_yaml.h"
#include "advice/pod_owners.h"
#include "analysis/detectors/pool_mismatch.h"

namespace dagadvisor::advice {
namespace {

using analysis::PoolMismatchEvidence;
using nlohmann::json;

struct TargetPool {
  const analysis::SuggestedPool* pool = nullptr;
  const analysis::PoolRoom* room = nullptr;
  std::vector<std::string> workloads;
  std::vector<PodOwner> owners;
};

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) {
    out += (out.empty() ? "" : ", ") + item;
  }
  return out;
}

// Node labels for inferred pools (step 1: a selector into a pool whose nodes lack the label
// would leave its pods pending); a required nodeSelector only into a pool with room for every
// pod moved there. Into one without, the pods that found no room would pend: a preferred
// affinity (in words, below) moves only those that fit.
std::vector<Patch> patches(const std::map<std::string, TargetPool>& pools, const std::string& label,
                           const model::ClusterSnapshot& cluster) {
  std::vector<Patch> out;
  for (const auto& [name, target] : pools) {
    if (target.pool->labelled) {
      continue;
    }
    out.push_back(nodeLabelPatch(
        target.pool->nodes, label, name,
        "label the nodes of the inferred pool " + name + " (adds the label, keeps the others)"));
  }
  const int step = out.empty() ? 1 : 2;
  for (const auto& [pool_name, target] : pools) {
    const std::string& name = pool_name;  // a structured binding no lambda may capture (C++17)
    if (!target.room->takesAll()) {
      continue;  // no required selector into a pool without room for all (action: preferred)
    }
    // A nodeSelector is required and ANDed with the pods' other constraints; a new
    // nodeSelectorTerm would be ORed with theirs and restrict nothing.
    for (const PodOwner& owner : target.owners) {
      const PodSpecSite site = podSpecSite(owner, PodField::kNodeSelector);
      out.push_back(podChangePatch(
          owner, PodField::kNodeSelector,
          "require " + label + "=" + name + " (pool " + name + " has room for all " +
              std::to_string(target.room->pool_moves) + " pod(s))",
          [&](const PodSpecSite& at) { return nodeSelectorPatches(at.path, label, name); },
          podsOf(cluster, site.object), step));
    }
  }
  return out;
}

// What to do per target pool: required where it has room for every move, preferred elsewhere.
std::string affinityAction(const std::map<std::string, TargetPool>& pools,
                           const std::string& label) {
  std::string out;
  for (const auto& [name, target] : pools) {
    const analysis::PoolRoom& room = *target.room;
    const std::string counts = std::to_string(room.pool_moves_fitting) + " of the " +
                               std::to_string(room.pool_moves) + " pod(s) moved there";
    out += room.takesAll()
               ? "Pool " + name + " has room for all " + std::to_string(room.pool_moves) +
                     " pod(s) moved there: give " + joined(target.workloads) +
                     " a required nodeSelector " + label + "=" + name + " (patches below). "
               : "Pool " + name + " has room for only " + counts + ": give " +
                     joined(target.workloads) + " a preferred node affinity (weight 100) " + label +
                     " In [" + name +
                     "], not a required one, which would leave the rest pending; add nodes to " +
                     name + " before making it required. ";
  }
  return out;
}

}  // namespace

std::vector<Recommendation> advisePoolMismatch(const FindingList& findings,
                                               const config::Config& config,
                                               const model::ClusterSnapshot& cluster) {
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
    target.room = &w.room;
    target.workloads.push_back(w.namespace_ + "/" + w.owner_kind + "/" + w.owner_name);
    target.owners.push_back({"", w.namespace_, w.owner_kind, w.owner_name});
    pods += w.pod_count;
    inferred = inferred || !w.suggested_pool.labelled;
  }
  std::size_t fitting = 0;
  for (const auto& [name, target] : pools) {
    fitting += target.room->pool_moves_fitting;
  }
  rec.title = std::to_string(findings.size()) + " workload(s) with " + std::to_string(pods) +
              " pod(s) run on a pool that does not fit their CPU:memory shape";
  rec.action = (inferred ? "Label the nodes of each inferred pool " + label +
                               "=<pool> (Node patches below). "
                         : std::string()) +
               affinityAction(pools, label) +
               "Memory-heavy pods then stop stranding CPU on compute nodes, CPU-heavy pods "
               "memory on memory nodes.";
  rec.patches = patches(pools, label, cluster);
  rec.impact_score = static_cast<double>(fitting);
  rec.impact = std::to_string(fitting) + " of " + std::to_string(pods) +
               " pod(s) fit the free room of the pool their shape fits now (first-fit packing "
               "of their requests)";
  rec.evidence = {{"workloads", workloads}, {"pods", pods}, {"pods_fitting", fitting}};
  return {std::move(rec)};
}

}  // namespace dagadvisor::advice
