#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "analysis/node_eligibility.h"
#include "common/clock.h"
#include "model/cluster.h"

namespace dagadvisor::analysis {

/// A pod a PriorityClass of the critical tasks could preempt: it holds resources on a node one
/// of them fits, and its priority is not known to be at least theirs.
struct PreemptionCandidate {
  std::string namespace_;
  std::string pod;
  std::string node;
  std::string owner_kind;  // "" when unowned
  std::string owner_name;
  std::string priority_class;  // "" when none (priority 0)
  /// Its own spec.priority where the API listed it, else 0 without a class, a listed class's
  /// value; nullopt: unknown.
  std::optional<std::int64_t> priority;
  std::optional<double> running_seconds;  // since it started, when known
  bool gpu = false;                       // holds GPUs: an eviction throws away accelerator time
  bool online = false;  // a long-running service (ReplicaSet, Deployment, StatefulSet)
  bool batch = false;   // a workflow task or a Job: restartable work
};

/// What runs at a lower (or unknown) priority on the nodes the critical tasks could use, and
/// whether preempting it is acceptable. The rule: preemption (PreemptLowerPriority) is
/// acceptable only when there is something to preempt and every candidate is a batch pod that
/// holds no GPU and has run no longer than the critical tasks have waited (the work an
/// eviction throws away is then less than the wait it ends). Otherwise `preemptionPolicy:
/// Never`: the class orders the queue and evicts nothing.
///
/// kube-state-metrics carries PriorityClass names (kube_pod_info's priority_class), not values,
/// and exports no PriorityClass objects: a pod without a class has priority 0 (the API server
/// names the global default class on pods when there is one), so it is known to be below the
/// proposed value. A named class's value comes from the Kubernetes API's PriorityClasses where
/// they were listed: a pod at or above the proposed value cannot be preempted by it and is no
/// candidate (counted as protected), one strictly below is a candidate of known priority.
/// Without that LIST (or for a class it does not hold), a pod of a named class counts as a
/// candidate of unknown priority (it may be lower) unless it is a built-in system class, which
/// is always higher.
struct PreemptionExposure {
  static constexpr std::size_t kMaxListed = 10;
  static constexpr std::size_t kMaxClasses = 5;
  /// The candidates of one PriorityClass ("" for none).
  struct ClassCount {
    std::string priority_class;
    std::optional<std::int64_t> value;  // 0 for none; a listed class's value; else unknown
    std::size_t pods = 0;
    std::size_t gpu_pods = 0;
    std::size_t online_pods = 0;
  };
  std::int64_t proposed_value = 0;   // the advice's PriorityClass value
  std::size_t nodes = 0;             // nodes a critical task may land on and fits (allocatable)
  std::size_t pods = 0;              // candidates on them
  std::size_t known_lower_pods = 0;  // of which are known to be lower (no class, a lower class)
  std::size_t unknown_priority_pods = 0;  // of which have a named class of unknown value
  /// Whether the PriorityClass values were listed (the Kubernetes API source); without them,
  /// every named class but the system ones is of unknown value.
  bool values_known = false;
  std::size_t protected_pods =
      0;                        // pods on those nodes at or above the proposed value: no candidates
  std::size_t gpu_pods = 0;     // of which hold GPUs
  std::size_t online_pods = 0;  // of which are services
  std::size_t not_batch_pods = 0;     // of which are not batch (services, DaemonSets, bare pods)
  std::size_t long_running_pods = 0;  // of which ran longer than the critical tasks waited
  std::vector<PreemptionCandidate> examples;  // the costliest to evict first: GPU, online, age
  std::vector<ClassCount> by_class;           // the kMaxClasses classes with the most candidates
  bool acceptable = false;                    // the rule above

  nlohmann::json toJson() const;
};

/// The class the advice proposes: its name and value.
struct ProposedPriority {
  std::string name;
  int value = 0;
};

/// The candidates on the nodes where any of `critical` (pending pods) may land (its tolerations
/// and node selector: `eligibility`, of `cluster`) and fits, judged against `critical_wait` (the
/// shortest time a critical task has waited). Pods of the proposed class are equal, not lower.
/// `dag_key` is the normalized DAG label.
PreemptionExposure preemptionExposure(const model::ClusterSnapshot& cluster,
                                      const NodeEligibility& eligibility,
                                      const std::vector<const model::Pod*>& critical,
                                      double critical_wait, const ProposedPriority& proposed,
                                      std::string_view dag_key);

}  // namespace dagadvisor::analysis
