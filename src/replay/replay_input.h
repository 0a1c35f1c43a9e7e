#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/clock.h"
#include "model/cluster.h"
#include "model/resources.h"
#include "replay/selectors.h"

namespace dagadvisor::replay {

using ReplayPodId = std::uint32_t;
using ReplayNodeId = std::uint32_t;
using ReplayRunId = std::uint32_t;
inline constexpr ReplayRunId kNoRun = std::numeric_limits<ReplayRunId>::max();
inline constexpr UnixSeconds kForever = std::numeric_limits<double>::infinity();

/// How a replayed pod is placed.
enum class PodRole {
  kTask,        // a task of a workflow run: arrives when its parents finished, scheduled anew
  kStandalone,  // any other pod created inside the window: arrives when observed, scheduled anew
  /// Bound where and when it was observed, never rescheduled: DaemonSet pods (pinned to their
  /// node) and pods already running when the window opened (services, long jobs).
  kFixed,
};

/// Where a replayed pod's run time comes from.
enum class RunTimeBasis {
  kObserved,   // started → finished as observed
  kEstimated,  // unfinished: the mean run time of finished instances of the task or shape
  kElapsed,    // still running, no estimate: the time run so far (a lower bound)
  /// Never started, no estimate: it holds its node until the window's end, and after it for
  /// `run_seconds`, the longest time a running instance of its task or shape has run (0 when
  /// none runs): such tasks take at least that.
  kUnknown,
};

/// A node as the replay's scheduler sees it.
struct ReplayNode {
  std::string name;
  model::ResourceVector allocatable;
  std::int64_t max_pods = 110;  // kubelet's default; kube-state-metrics' pod capacity is not read
  model::LabelSet labels;
  std::vector<model::Taint> taints;
  bool unschedulable = false;  // cordoned: no new pod, bound ones stay
  std::string zone;            // the zone label's value; empty when the node has none
};

/// Seconds a byte handed from a parent on another node adds to the child's run, from a node of
/// its zone and from another zone (analysis/transfer_prices.h measures them); 0 when not measured.
struct TransferPrices {
  double same_zone_seconds_per_byte = 0;
  double cross_zone_seconds_per_byte = 0;

  bool priced() const { return same_zone_seconds_per_byte > 0 || cross_zone_seconds_per_byte > 0; }
};

/// A pod of the window with everything the scheduler filters and scores on and the times the
/// replay charges. What the model does not carry (tolerations, node selectors, affinity) is
/// inferred where the observation implies it (`tolerations_inferred`) and otherwise empty; a
/// ChangeSet adds to it.
struct ReplayPod {
  std::string namespace_;
  std::string name;
  model::PodId source = 0;  // the pod in the snapshot
  PodRole role = PodRole::kStandalone;
  std::string owner_kind;
  std::string owner_name;
  model::LabelSet labels;
  model::ResourceVector requests;
  std::string priority_class;
  std::int64_t priority = 0;
  bool preempts = true;  // preemptionPolicy PreemptLowerPriority (false: Never)
  std::vector<Toleration> tolerations;
  bool tolerations_inferred = false;
  std::vector<std::pair<std::string, std::string>> node_selector;  // nodeSelector: key = value
  RequiredNodeAffinity node_affinity;
  /// Terms a change added (the model carries none of the observed ones). Such a pod goes back to
  /// its observed node only where its terms score no feasible node above it.
  std::vector<PreferredPodAffinityTerm> preferred_pod_affinity;
  /// A change edited the taints or labels of a node the pod may use: the observed node was
  /// chosen among nodes that no longer hold what they held, so the pod is scored like any
  /// other, the observed node winning only ties (applyChanges sets it).
  bool rescored = false;

  /// Roots and standalone pods: the observed creation. Tasks with parents arrive `handoff`
  /// after their last parent finished instead.
  UnixSeconds arrival = 0;
  double handoff = 0;      // last parent finished → created, as observed (or the median)
  double start_delay = 0;  // bound → container started (image pull, sandbox)
  /// Arrival → first scheduling attempt: the scheduler's own delay, 0 unless
  /// estimateSchedulerLatency() measured one for the pod's time of arrival.
  double queue_latency = 0;
  /// created → scheduled as observed (waiting for room and the scheduler's own delay alike).
  std::optional<double> observed_queue_seconds;
  double run_seconds = 0;  // container started → finished
  RunTimeBasis basis = RunTimeBasis::kObserved;
  /// What fetching from a parent in another zone adds to the run: the task's slowdown across
  /// zones as measured over its DAG's runs (replay/transfer.h); 0 where none was shown.
  double cross_zone_seconds = 0;
  /// Where the cluster's received bytes priced a hand-off (TransferPrices): what the task
  /// received from each parent (its received bytes shared evenly), and those prices. The replay
  /// then charges each parent on another node by zone, in place of `cross_zone_seconds`.
  double bytes_per_parent = 0;
  TransferPrices prices;
  /// What that charged the observed placement, part of `run_seconds`: the replay charges its
  /// own placement instead. nullopt when a node or zone is unknown: the run time stays as
  /// observed wherever the pods land.
  std::optional<double> observed_transfer_seconds;

  ReplayRunId run = kNoRun;
  std::vector<ReplayPodId> parents;  // DAG parents within the run
  std::vector<ReplayPodId> children;

  std::optional<ReplayNodeId> observed_node;
  UnixSeconds observed_bound = 0;            // kFixed: occupies observed_node from here …
  UnixSeconds observed_released = kForever;  // … to here

  std::string task;  // the engine's task id within its run (tasks only)
  /// Not created by the window's end: a task its run had not reached, taken from a finished run
  /// of its DAG (run_completion.h). Modelled, so never in the GPU figures or the calibration.
  bool unseen = false;
};

/// A pod of the window the replay schedules anew (not fixed, not unseen) that requests GPUs: the
/// pods whose wait the GPU figures follow.
inline bool requestsGpusAnew(const ReplayPod& pod) {
  return pod.role != PodRole::kFixed && !pod.unseen && pod.requests.gpus > 0;
}

/// One workflow run of the window with what was observed of it.
struct ReplayRun {
  std::string id;   // namespace/dag/run
  std::string dag;  // namespace/dag
  /// The pod labels that tell this run's pods from other runs' (model::WorkflowRun::selector).
  std::vector<std::pair<std::string, std::string>> run_labels{};
  std::vector<ReplayPodId> tasks;
  bool observed_finished = false;
  double observed_makespan = 0;  // first created → last finished (→ window end if unfinished)
};

/// Everything a replay needs: built from the model by buildReplayInput(), edited by a
/// ChangeSet, replayed by replay(). Plain data, so a change can copy and edit it.
struct ReplayInput {
  UnixSeconds window_start = 0;
  UnixSeconds window_end = 0;
  std::vector<ReplayNode> nodes;
  std::vector<ReplayPod> pods;
  std::vector<ReplayRun> runs;
  std::vector<std::string> notes;  // what could not be replayed as observed, and why
  /// The nodes kube-scheduler sees, when only part of them is replayed (restrictTo()): how many
  /// feasible nodes it looks for depends on the cluster's size. 0: nodes.size().
  std::size_t scheduler_nodes = 0;

  std::size_t schedulerNodes() const {
    return scheduler_nodes > 0 ? scheduler_nodes : nodes.size();
  }
};

}  // namespace dagadvisor::replay
