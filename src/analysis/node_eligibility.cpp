#include "analysis/node_eligibility.h"

#include <algorithm>
#include <iterator>
#include <tuple>
#include <utility>

#include "analysis/stranding.h"

namespace dagadvisor::analysis {
namespace {

bool isHard(const model::Taint& t) {
  return t.effect == "NoSchedule" || t.effect == "NoExecute";
}

std::vector<model::Taint> hardTaints(const model::Node& node) {
  std::vector<model::Taint> out;
  std::copy_if(node.taints.begin(), node.taints.end(), std::back_inserter(out), isHard);
  std::sort(out.begin(), out.end(), [](const model::Taint& a, const model::Taint& b) {
    return std::tie(a.key, a.value, a.effect) < std::tie(b.key, b.value, b.effect);
  });
  return out;
}

bool sameTaints(const std::vector<model::Taint>& a, const std::vector<model::Taint>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [](const model::Taint& x, const model::Taint& y) {
                      return x.key == y.key && x.value == y.value && x.effect == y.effect;
                    });
}

std::string ownerKey(const model::Pod& pod) {
  return pod.namespace_ + '\x1f' + pod.owner_kind + '\x1f' + pod.owner_name;
}

std::string taintKey(const model::Taint& t) {
  return t.key + '\x1f' + t.effect;
}

}  // namespace

NodeEligibility::NodeEligibility(const model::ClusterSnapshot& cluster, std::string gpu_taint_key)
    : gpu_taint_key_(std::move(gpu_taint_key)) {
  const std::size_t n = cluster.nodes().size();
  group_of_.resize(n);
  usable_.resize(n);
  for (model::NodeId id = 0; id < n; ++id) {
    usable_[id] = acceptsPods(cluster.node(id));
    std::vector<model::Taint> taints = hardTaints(cluster.node(id));
    auto it = std::find_if(groups_.begin(), groups_.end(),
                           [&](const Group& g) { return sameTaints(g.hard_taints, taints); });
    if (it == groups_.end()) {
      groups_.push_back({std::move(taints)});
      it = groups_.end() - 1;
    }
    group_of_[id] = static_cast<std::uint32_t>(it - groups_.begin());
  }
  // Only owners of pending pods are ever asked about.
  std::vector<std::string> asked;
  for (model::PodId id : cluster.pendingPods()) {
    if (!cluster.pod(id).owner_name.empty()) {
      asked.push_back(ownerKey(cluster.pod(id)));
    }
  }
  std::sort(asked.begin(), asked.end());
  for (const model::Pod& pod : cluster.pods()) {
    if (pod.node >= n || pod.owner_name.empty() ||
        groups_[group_of_[pod.node]].hard_taints.empty()) {
      continue;
    }
    std::string owner = ownerKey(pod);
    if (!std::binary_search(asked.begin(), asked.end(), owner)) {
      continue;
    }
    for (const model::Taint& t : groups_[group_of_[pod.node]].hard_taints) {
      observed_.emplace_back(owner, taintKey(t));
    }
  }
  std::sort(observed_.begin(), observed_.end());
  observed_.erase(std::unique(observed_.begin(), observed_.end()), observed_.end());
}

bool NodeEligibility::tolerates(const model::Pod& pod, const model::Taint& taint) const {
  if (pod.requests.gpus > 0 && taint.key == gpu_taint_key_) {
    return true;
  }
  return !pod.owner_name.empty() &&
         std::binary_search(observed_.begin(), observed_.end(),
                            std::make_pair(ownerKey(pod), taintKey(taint)));
}

std::string NodeEligibility::groupsFor(const model::Pod& pod) const {
  std::string flags(groups_.size(), '1');
  for (std::size_t g = 0; g < groups_.size(); ++g) {
    for (const model::Taint& t : groups_[g].hard_taints) {
      if (!tolerates(pod, t)) {
        flags[g] = '0';
        break;
      }
    }
  }
  return flags;
}

}  // namespace dagadvisor::analysis
