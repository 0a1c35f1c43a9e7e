#include "replay/preemption.h"

#include <algorithm>
#include <limits>
#include <tuple>

#include "replay/filter.h"

namespace dagadvisor::replay {
namespace {

// kube-scheduler adds MaxInt32 + 1 to every priority before summing, so that more victims
// always weigh more than fewer of the same priorities, even negative ones.
constexpr std::int64_t kPriorityOffset = std::int64_t{std::numeric_limits<std::int32_t>::max()} + 1;

struct Candidate {
  PreemptionPlan plan;
  std::int64_t highest = std::numeric_limits<std::int64_t>::min();
  std::int64_t sum = 0;

  auto rank() const { return std::make_tuple(highest, sum, plan.victims.size(), plan.node); }
};

std::optional<Candidate> victimsOn(const ReplayPod& preemptor, ReplayNodeId node_id,
                                   const PreemptionView& view) {
  const ReplayNode& node = view.nodes[node_id];
  const NodeState& state = view.states[node_id];
  std::vector<ReplayPodId> lower;
  model::ResourceVector requested = state.requested;
  for (ReplayPodId id : state.pods) {
    if (view.evictable[id] && view.pods[id].priority < preemptor.priority) {
      lower.push_back(id);
      requested -= view.pods[id].requests;
    }
  }
  std::size_t count = state.pods.size() - lower.size();
  if (lower.empty() || filterResources(preemptor, node, requested, count) != FilterResult::kFits) {
    return std::nullopt;
  }
  std::sort(lower.begin(), lower.end(), [&](ReplayPodId a, ReplayPodId b) {
    const auto& pa = view.pods[a];
    const auto& pb = view.pods[b];
    return std::make_tuple(-pa.priority, view.bound_at[a], a) <
           std::make_tuple(-pb.priority, view.bound_at[b], b);
  });
  Candidate c;
  c.plan.node = node_id;
  for (ReplayPodId id : lower) {
    const model::ResourceVector with = requested + view.pods[id].requests;
    if (filterResources(preemptor, node, with, count + 1) == FilterResult::kFits) {
      requested = with;  // reprieved: the preemptor fits beside it
      ++count;
      continue;
    }
    c.plan.victims.push_back(id);
    c.highest = std::max(c.highest, view.pods[id].priority);
    c.sum += view.pods[id].priority + kPriorityOffset;
  }
  return c;
}

}  // namespace

std::optional<PreemptionPlan> planPreemption(const ReplayPod& preemptor,
                                             const PreemptionView& view) {
  std::optional<Candidate> best;
  for (ReplayNodeId n = 0; n < view.nodes.size(); ++n) {
    const bool static_fit = view.static_filter != nullptr
                                ? (*view.static_filter)[view.group_of[n]] == FilterResult::kFits
                                : filterStatic(preemptor, view.nodes[n]) == FilterResult::kFits;
    if (!static_fit) {
      continue;
    }
    auto c = victimsOn(preemptor, n, view);
    if (c && !c->plan.victims.empty() && (!best || c->rank() < best->rank())) {
      best = std::move(c);
    }
  }
  if (!best) {
    return std::nullopt;
  }
  return std::move(best->plan);
}

}  // namespace dagadvisor::replay
