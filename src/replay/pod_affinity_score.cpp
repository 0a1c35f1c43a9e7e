#include "replay/pod_affinity_score.h"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "replay/score.h"

namespace dagadvisor::replay {
namespace {

constexpr std::string_view kHostnameKey = "kubernetes.io/hostname";

/// The node's value of a topology key, or nullopt when the node is in no domain of it.
std::optional<std::string_view> domainOf(const ReplayNode& node, std::string_view topology_key) {
  if (auto value = node.labels.get(topology_key)) {
    return value;
  }
  if (topology_key == kHostnameKey) {
    return std::string_view(node.name);
  }
  return std::nullopt;
}

/// Raw scores per topology domain: (topology key, value) → the sum of the matching terms' weights.
using DomainScores = std::map<std::pair<std::string, std::string>, std::int64_t>;

void addTerm(DomainScores& scores, const PreferredPodAffinityTerm& term, const ReplayNode& node) {
  if (auto value = domainOf(node, term.topology_key)) {
    scores[{term.topology_key, std::string(*value)}] += term.signedWeight();
  }
}

/// Both halves of the raw score, per domain: the incoming pod's terms over the bound pods, and the
/// bound pods' terms over the incoming pod.
DomainScores domainScores(const ReplayPod& pod, const std::vector<ReplayNode>& nodes,
                          const std::vector<NodeState>& states,
                          const std::vector<ReplayPod>& pods) {
  DomainScores scores;
  for (ReplayNodeId n = 0; n < states.size(); ++n) {
    for (const ReplayPodId id : states[n].pods) {
      const ReplayPod& bound = pods[id];
      for (const PreferredPodAffinityTerm& term : pod.preferred_pod_affinity) {
        if (bound.namespace_ == pod.namespace_ && term.selector.matches(bound.labels)) {
          addTerm(scores, term, nodes[n]);
        }
      }
      for (const PreferredPodAffinityTerm& term : bound.preferred_pod_affinity) {
        if (bound.namespace_ == pod.namespace_ && term.selector.matches(pod.labels)) {
          addTerm(scores, term, nodes[n]);
        }
      }
    }
  }
  return scores;
}

std::int64_t rawScore(const DomainScores& scores, const ReplayNode& node) {
  std::int64_t total = 0;
  for (const auto& [domain, score] : scores) {
    if (domainOf(node, domain.first) == std::string_view(domain.second)) {
      total += score;
    }
  }
  return total;
}

}  // namespace

std::vector<std::int64_t> interPodAffinityScores(const ReplayPod& pod,
                                                 std::span<const ReplayNodeId> feasible,
                                                 const std::vector<ReplayNode>& nodes,
                                                 const std::vector<NodeState>& states,
                                                 const std::vector<ReplayPod>& pods) {
  std::vector<std::int64_t> out(feasible.size(), 0);
  const DomainScores scores = domainScores(pod, nodes, states, pods);
  if (scores.empty()) {
    return out;
  }
  for (std::size_t i = 0; i < feasible.size(); ++i) {
    out[i] = rawScore(scores, nodes[feasible[i]]);
  }
  const auto [lowest, highest] = std::minmax_element(out.begin(), out.end());
  const std::int64_t min = *lowest;
  const std::int64_t spread = *highest - min;
  for (std::int64_t& score : out) {
    // kube-scheduler's arithmetic: a float ratio, truncated.
    score = spread > 0 ? static_cast<std::int64_t>(
                             static_cast<double>(kMaxNodeScore) *
                             (static_cast<double>(score - min) / static_cast<double>(spread)))
                       : 0;
  }
  return out;
}

}  // namespace dagadvisor::replay
