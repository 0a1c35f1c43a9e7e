#include "replay/change_set.h"

#include <algorithm>
#include <string>
#include <type_traits>
#include <vector>

#include "replay/filter.h"

namespace dagadvisor::replay {
namespace {

template <class Edit>
std::size_t editPods(ReplayInput& in, const PodMatch& match, Edit edit) {
  std::size_t n = 0;
  for (ReplayPod& pod : in.pods) {
    if (match.matches(pod)) {
      edit(pod);
      ++n;
    }
  }
  return n;
}

std::size_t apply(ReplayInput& in, const AddNodeTaint& c) {
  std::size_t n = 0;
  for (ReplayNode& node : in.nodes) {
    if (!c.nodes.matches(node)) {
      continue;
    }
    ++n;
    const bool present = std::any_of(node.taints.begin(), node.taints.end(), [&](const auto& t) {
      return t.key == c.taint.key && t.effect == c.taint.effect;
    });
    if (!present) {
      node.taints.push_back(c.taint);
    }
  }
  return n;
}

std::size_t apply(ReplayInput& in, const SetNodeLabel& c) {
  std::size_t n = 0;
  for (ReplayNode& node : in.nodes) {
    if (c.nodes.matches(node)) {
      node.labels.set(c.key, c.value);
      ++n;
    }
  }
  return n;
}

std::size_t apply(ReplayInput& in, const AddToleration& c) {
  return editPods(in, c.pods, [&](ReplayPod& p) { p.tolerations.push_back(c.toleration); });
}

std::size_t apply(ReplayInput& in, const SetNodeSelector& c) {
  return editPods(in, c.pods, [&](ReplayPod& p) {
    auto it = std::find_if(p.node_selector.begin(), p.node_selector.end(),
                           [&](const auto& kv) { return kv.first == c.key; });
    if (it != p.node_selector.end()) {
      it->second = c.value;
    } else {
      p.node_selector.emplace_back(c.key, c.value);
    }
  });
}

std::size_t apply(ReplayInput& in, const AddRequiredNodeAffinity& c) {
  return editPods(in, c.pods, [&](ReplayPod& p) {
    if (p.node_affinity.terms.empty()) {
      p.node_affinity.terms.push_back(c.term);
      return;
    }
    for (LabelSelector& term : p.node_affinity.terms) {
      term.requirements.insert(term.requirements.end(), c.term.requirements.begin(),
                               c.term.requirements.end());
    }
  });
}

// matchLabelKeys is resolved as the API server does when the pod is created: each key the pod
// carries becomes `key In (the pod's value)` of the term's selector; a key it lacks is ignored.
std::size_t apply(ReplayInput& in, const AddPreferredPodAffinity& c) {
  return editPods(in, c.pods, [&](ReplayPod& p) {
    PreferredPodAffinityTerm term = c.term;
    for (const std::string& key : c.match_label_keys) {
      if (auto value = p.labels.get(key)) {
        term.selector.requirements.push_back({key, SelectorOp::kIn, {std::string(*value)}});
      }
    }
    p.preferred_pod_affinity.push_back(std::move(term));
  });
}

std::size_t apply(ReplayInput& in, const SetPriority& c) {
  return editPods(in, c.pods, [&](ReplayPod& p) {
    p.priority_class = c.priority_class;
    p.priority = c.priority;
    p.preempts = c.preempts;
  });
}

std::size_t apply(ReplayInput& in, const SetRequests& c) {
  return editPods(in, c.pods, [&](ReplayPod& p) {
    p.requests.cpu_millis = c.cpu_millis.value_or(p.requests.cpu_millis);
    p.requests.memory_bytes = c.memory_bytes.value_or(p.requests.memory_bytes);
    p.requests.gpus = c.gpus.value_or(p.requests.gpus);
  });
}

std::size_t apply(ReplayInput& in, const RecreatePods& c) {
  std::size_t n = 0;
  for (ReplayPod& p : in.pods) {
    if (p.owner_kind == "DaemonSet" || !c.pods.matches(p)) {
      continue;
    }
    ++n;
    if (p.role != PodRole::kFixed) {
      continue;
    }
    p.role = PodRole::kStandalone;
    p.arrival = std::max(in.window_start, p.observed_bound);
    p.start_delay = 0;
    if (p.observed_released < kForever) {
      p.run_seconds = std::max(0.0, p.observed_released - p.arrival);
      p.basis = RunTimeBasis::kObserved;
    } else {
      p.run_seconds = 0;
      p.basis = RunTimeBasis::kUnknown;
    }
  }
  return n;
}

// A node whose taints or labels a change edits no longer holds the pods it held: those the
// change keeps off leave, those it lets on arrive. Every pod that may still use such a node
// chose its observed node in a cluster that is gone, so it is scored again (ReplayPod::rescored).
void rescoreAroundEditedNodes(ReplayInput& in, const ChangeSet& changes) {
  std::vector<ReplayNodeId> edited;
  for (ReplayNodeId n = 0; n < in.nodes.size(); ++n) {
    const bool hit =
        std::any_of(changes.changes.begin(), changes.changes.end(), [&](const auto& c) {
          return std::visit(
              [&](const auto& change) {
                using T = std::decay_t<decltype(change)>;
                if constexpr (std::is_same_v<T, AddNodeTaint> || std::is_same_v<T, SetNodeLabel>) {
                  return change.nodes.matches(in.nodes[n]);
                } else {
                  return false;
                }
              },
              c);
        });
    if (hit) {
      edited.push_back(n);
    }
  }
  if (edited.empty()) {
    return;
  }
  for (ReplayPod& pod : in.pods) {
    if (pod.role == PodRole::kFixed || pod.rescored) {
      continue;
    }
    pod.rescored = std::any_of(edited.begin(), edited.end(), [&](ReplayNodeId n) {
      return filterStatic(pod, in.nodes[n]) == FilterResult::kFits;
    });
  }
}

}  // namespace

bool NodeMatch::matches(const ReplayNode& node) const {
  const bool named =
      names.empty() || std::find(names.begin(), names.end(), node.name) != names.end();
  return named && labels.matches(node.labels);
}

bool PodMatch::matches(const ReplayPod& pod) const {
  const bool named = names.empty() || std::find(names.begin(), names.end(),
                                                pod.namespace_ + "/" + pod.name) != names.end();
  return (namespace_.empty() || pod.namespace_ == namespace_) &&
         (owner_kind.empty() || pod.owner_kind == owner_kind) &&
         (owner_name.empty() || pod.owner_name == owner_name) &&
         (!requesting_gpus || pod.requests.gpus > 0) && named && labels.matches(pod.labels);
}

Result<ChangeReport> applyChanges(ReplayInput& input, const ChangeSet& changes) {
  ChangeReport report;
  for (std::size_t i = 0; i < changes.changes.size(); ++i) {
    const std::size_t n =
        std::visit([&](const auto& change) { return apply(input, change); }, changes.changes[i]);
    if (n == 0) {
      return makeError("matches no object of the replay", "changes[" + std::to_string(i) + "]");
    }
    report.matched.push_back(n);
  }
  rescoreAroundEditedNodes(input, changes);
  return report;
}

}  // namespace dagadvisor::replay
