#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

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
  std::string priority_class;             // "" when none (priority 0)
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
/// Metrics carry PriorityClass names, not values: a pod of another named class counts as a
/// candidate (it may be lower) unless it is a built-in system class, which is always higher.
struct PreemptionExposure {
  static constexpr std::size_t kMaxListed = 10;
  std::size_t nodes = 0;              // schedulable nodes a critical task fits (allocatable)
  std::size_t pods = 0;               // candidates on them
  std::size_t gpu_pods = 0;           // of which hold GPUs
  std::size_t online_pods = 0;        // of which are services
  std::size_t not_batch_pods = 0;     // of which are not batch (services, DaemonSets, bare pods)
  std::size_t long_running_pods = 0;  // of which ran longer than the critical tasks waited
  std::vector<PreemptionCandidate> examples;  // the costliest to evict first: GPU, online, age
  bool acceptable = false;                    // the rule above

  nlohmann::json toJson() const;
};

/// The candidates on the nodes where any of `critical` (pending pods) fits, judged against
/// `critical_wait` (the shortest time a critical task has waited). Pods of `critical_class`
/// (the advice's own class) are equal, not lower. `dag_key` is the normalized DAG label.
PreemptionExposure preemptionExposure(const model::ClusterSnapshot& cluster,
                                      const std::vector<const model::Pod*>& critical,
                                      double critical_wait, const std::string& critical_class,
                                      std::string_view dag_key);

}  // namespace dagadvisor::analysis
