#include "replay/scope.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <optional>
#include <string>
#include <unordered_map>

#include "replay/node_groups.h"

namespace dagadvisor::replay {
namespace {

// What the replay reads of a pod beyond its placement: a change to any of it is a change.
std::string podKey(const ReplayPod& pod) {
  std::string key = placementKey(pod);
  for (const std::string& field :
       {std::to_string(static_cast<int>(pod.role)), std::to_string(pod.priority),
        std::string(pod.preempts ? "1" : "0"), pod.priority_class, scoringKey(pod)}) {
    key.push_back('\x1f');
    key.append(field);
  }
  return key;
}

class UnionFind {
 public:
  explicit UnionFind(std::size_t n) : parent_(n) { std::iota(parent_.begin(), parent_.end(), 0); }
  std::size_t find(std::size_t x) {
    while (parent_[x] != x) {
      parent_[x] = parent_[parent_[x]];
      x = parent_[x];
    }
    return x;
  }
  void join(std::size_t a, std::size_t b) { parent_[find(a)] = find(b); }

 private:
  std::vector<std::size_t> parent_;
};

// The nodes of the window before and after the change, grouped together: a node whose taints
// or labels the change edits lands in another group after.
struct SidedGroups {
  NodeGroups groups;
  std::vector<NodeGroup> before;  // by node
  std::vector<NodeGroup> after;
};

struct Reach {
  UnionFind components;
  std::vector<std::optional<NodeGroup>> pod_anchor;  // a group the pod is connected to
};

// Connects each pod to the groups it could use on either side and to its observed node, and
// the tasks of a run to each other.
Reach connect(const ReplayInput& before, const ReplayInput& after, const SidedGroups& sides) {
  Reach reach{UnionFind(sides.groups.size()),
              std::vector<std::optional<NodeGroup>>(before.pods.size())};
  PodEligibility eligible_before(before, sides.groups, sides.before);
  PodEligibility eligible_after(after, sides.groups, sides.after);
  const auto link = [&](ReplayPodId id, NodeGroup g) {
    if (reach.pod_anchor[id]) {
      reach.components.join(*reach.pod_anchor[id], g);
    } else {
      reach.pod_anchor[id] = g;
    }
  };
  for (ReplayPodId id = 0; id < before.pods.size(); ++id) {
    for (const bool side_after : {false, true}) {
      const ReplayPod& pod = (side_after ? after : before).pods[id];
      if (pod.observed_node) {
        link(id, (side_after ? sides.after : sides.before)[*pod.observed_node]);
      }
      if (pod.role != PodRole::kFixed) {
        for (NodeGroup g : (side_after ? eligible_after : eligible_before).of(pod).groups) {
          link(id, g);
        }
      }
    }
  }
  for (const ReplayRun& run : before.runs) {
    std::optional<NodeGroup> first;
    for (ReplayPodId id : run.tasks) {
      if (!reach.pod_anchor[id]) {
        continue;
      }
      if (first) {
        reach.components.join(*first, *reach.pod_anchor[id]);
      } else {
        first = reach.pod_anchor[id];
      }
    }
    for (ReplayPodId id : run.tasks) {
      reach.pod_anchor[id] = reach.pod_anchor[id] ? reach.pod_anchor[id] : first;
    }
  }
  return reach;
}

}  // namespace

ReplayScope scopeOfChange(const ReplayInput& before, const ReplayInput& after) {
  SidedGroups sides;
  sides.before = sides.groups.add(before);
  sides.after = sides.groups.add(after);
  Reach reach = connect(before, after, sides);
  std::vector<std::uint8_t> touched(sides.groups.size());
  for (ReplayNodeId n = 0; n < before.nodes.size(); ++n) {
    if (nodeKey(before.nodes[n], true) != nodeKey(after.nodes[n], true)) {
      touched[reach.components.find(sides.before[n])] = 1;
      touched[reach.components.find(sides.after[n])] = 1;
    }
  }
  for (ReplayPodId id = 0; id < before.pods.size(); ++id) {
    if (reach.pod_anchor[id] && podKey(before.pods[id]) != podKey(after.pods[id])) {
      touched[reach.components.find(*reach.pod_anchor[id])] = 1;
    }
  }
  const auto reached = [&](std::optional<NodeGroup> g) {
    return g && touched[reach.components.find(*g)] != 0;
  };
  ReplayScope scope;
  for (ReplayNodeId n = 0; n < before.nodes.size(); ++n) {
    if (reached(sides.before[n])) {
      scope.nodes.push_back(n);
    }
  }
  for (ReplayPodId id = 0; id < before.pods.size(); ++id) {
    if (reached(reach.pod_anchor[id])) {
      scope.pods.push_back(id);
    }
  }
  for (ReplayRunId r = 0; r < before.runs.size(); ++r) {
    if (!before.runs[r].tasks.empty() && reached(reach.pod_anchor[before.runs[r].tasks.front()])) {
      scope.runs.push_back(r);
    }
  }
  scope.whole = !scope.nodes.empty() && scope.nodes.size() == before.nodes.size();
  return scope;
}

namespace {

template <class Id>
std::vector<Id> newIndex(const std::vector<Id>& kept, std::size_t total) {
  constexpr Id kGone = std::numeric_limits<Id>::max();
  std::vector<Id> index(total, kGone);
  for (std::size_t i = 0; i < kept.size(); ++i) {
    index[kept[i]] = static_cast<Id>(i);
  }
  return index;
}

template <class Id>
std::vector<Id> remapped(const std::vector<Id>& ids, const std::vector<Id>& index) {
  std::vector<Id> out;
  for (Id id : ids) {
    if (index[id] != std::numeric_limits<Id>::max()) {
      out.push_back(index[id]);
    }
  }
  return out;
}

}  // namespace

ReplayInput restrictTo(const ReplayInput& input, const ReplayScope& scope) {
  ReplayInput out;
  out.window_start = input.window_start;
  out.window_end = input.window_end;
  out.scheduler_nodes = input.schedulerNodes();
  out.notes = input.notes;
  const auto node_index = newIndex(scope.nodes, input.nodes.size());
  const auto pod_index = newIndex(scope.pods, input.pods.size());
  const auto run_index = newIndex(scope.runs, input.runs.size());
  for (ReplayNodeId n : scope.nodes) {
    out.nodes.push_back(input.nodes[n]);
  }
  for (ReplayPodId id : scope.pods) {
    ReplayPod pod = input.pods[id];
    pod.parents = remapped(pod.parents, pod_index);
    pod.children = remapped(pod.children, pod_index);
    pod.run = pod.run == kNoRun ? kNoRun : run_index[pod.run];
    if (pod.observed_node) {
      const ReplayNodeId n = node_index[*pod.observed_node];
      pod.observed_node =
          n == std::numeric_limits<ReplayNodeId>::max() ? std::nullopt : std::optional(n);
    }
    out.pods.push_back(std::move(pod));
  }
  for (ReplayRunId r : scope.runs) {
    ReplayRun run = input.runs[r];
    run.tasks = remapped(run.tasks, pod_index);
    out.runs.push_back(std::move(run));
  }
  return out;
}

}  // namespace dagadvisor::replay
