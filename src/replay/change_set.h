#pragma once

#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "common/result.h"
#include "model/cluster.h"
#include "model/resources.h"
#include "replay/replay_input.h"
#include "replay/selectors.h"

namespace dagadvisor::replay {

/// Which nodes a change edits: those named (when any name is given) and matching `labels`.
struct NodeMatch {
  std::vector<std::string> names;
  LabelSelector labels;

  bool matches(const ReplayNode& node) const;
};

/// Which pods a change edits: in `namespace_` (any when empty) and matching `labels`; with an
/// owner kind or name given, only the pods of that owner (a Deployment's pods are owned by its
/// ReplicaSets: give the ReplicaSet); with names given, only those pods; with
/// `requesting_gpus`, only pods that request a GPU. Fixed pods match too but stay where and when
/// they were observed: of a change, only new requests alter what they take from their node.
struct PodMatch {
  std::string namespace_;
  LabelSelector labels;
  std::string owner_kind;
  std::string owner_name;
  std::vector<std::string> names{};  // "namespace/name"
  bool requesting_gpus = false;

  bool matches(const ReplayPod& pod) const;
};

/// A taint added to nodes (a NoSchedule taint keeps the pods already bound; NoExecute evicts
/// them in Kubernetes, which the replay does not model: it only stops new ones).
struct AddNodeTaint {
  NodeMatch nodes;
  model::Taint taint;
};

/// A label key = value set on nodes (`kubectl label node`, replacing the key's value).
struct SetNodeLabel {
  NodeMatch nodes;
  std::string key;
  std::string value;
};

struct AddToleration {
  PodMatch pods;
  Toleration toleration;
};

/// nodeSelector key = value on the pods (replacing the value of the key when set).
struct SetNodeSelector {
  PodMatch pods;
  std::string key;
  std::string value;
};

/// A required node affinity term ANDed into each of the pods' terms (or their only term).
struct AddRequiredNodeAffinity {
  PodMatch pods;
  LabelSelector term;
};

/// A preferred pod (anti-)affinity term appended to the pods' own; with `match_label_keys`
/// (Kubernetes 1.29+), each pod's term also selects its own values of those keys.
struct AddPreferredPodAffinity {
  PodMatch pods;
  PreferredPodAffinityTerm term;
  std::vector<std::string> match_label_keys{};
};

/// A PriorityClass with its value and preemption policy for the pods.
struct SetPriority {
  PodMatch pods;
  std::string priority_class;
  std::int64_t priority = 0;
  bool preempts = true;  // preemptionPolicy: PreemptLowerPriority; false: Never
};

/// New requests for the pods (each resource only when given).
struct SetRequests {
  PodMatch pods;
  std::optional<std::int64_t> cpu_millis;
  std::optional<std::int64_t> memory_bytes;
  std::optional<std::int64_t> gpus;
};

/// The matching fixed pods are deleted and created again when the window opens (a
/// `kubectl rollout restart`), so that the scheduler places them anew under the other changes
/// (a NoSchedule taint alone never moves a running pod). Each keeps its observed end, or holds
/// its new node to the window's end when it never ended. DaemonSet pods are pinned to their node
/// and never recreated elsewhere; pods the replay schedules anyway are left as they are and
/// count as matched (they are placed anew under the changes already).
struct RecreatePods {
  PodMatch pods;
};

using Change = std::variant<AddNodeTaint, SetNodeLabel, AddToleration, SetNodeSelector,
                            AddRequiredNodeAffinity, AddPreferredPodAffinity, SetPriority,
                            SetRequests, RecreatePods>;

/// The edits a recommendation makes to the replayed cluster, applied in order before replaying.
struct ChangeSet {
  std::vector<Change> changes;
};

/// How many objects each change of a set edited, in the order of the set.
struct ChangeReport {
  std::vector<std::size_t> matched;
};

/// Applies `changes` to `input`. A change that matches nothing fails the whole set (the
/// recommendation is about objects the replay does not have), naming the change by its index.
Result<ChangeReport> applyChanges(ReplayInput& input, const ChangeSet& changes);

}  // namespace dagadvisor::replay
