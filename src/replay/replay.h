#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>
#include <vector>

#include "common/result.h"
#include "replay/replay_input.h"
#include "replay/scheduling_queue.h"
#include "replay/score.h"

// The replay of an observed window, as a prediction uses it:
//   auto in = buildReplayInput(cluster, graphs);      // the window, from the model
//   estimateSchedulerLatency(*in);                     // the scheduler's own delay
//   auto fit = fitQueueOrder(*in);                     // calibrated: fit->calibration
//   ReplayInput changed = *in; applyChanges(changed, set);
//   gain = replay(changed, fit->profile) against replay(*in, fit->profile)
// (docs/whatif.md, "Replay").
namespace dagadvisor::replay {

/// The scheduler the replay emulates: the default profile of kube-scheduler.
struct SchedulerProfile {
  ScoreWeights weights;
  BackoffPolicy backoff;
  QueueOrder queue_order = QueueOrder::kQueueTimestamp;
  bool preemption = true;  // DefaultPreemption
  /// A pod whose observed node passes the filters when it is attempted goes back there, without
  /// scoring. The observed choice stands in for what the model cannot see of the real decision
  /// (score plugins on images, topology spread and pod affinity; kube-scheduler's random pick
  /// among equal scores); pods a change forces off their node, and pods never placed, are
  /// scored. Off: every placement is the emulated scheduler's own.
  bool prefer_observed_node = true;
  /// percentageOfNodesToScore: 0 is kube-scheduler's adaptive default (all nodes below 100,
  /// then 50 % less 1 % per 125 nodes, at least 5 % and at least 100 nodes).
  int percentage_of_nodes_to_score = 0;
};

/// What happened to one pod in the replay. Times are kForever for what never happened.
struct PodOutcome {
  std::optional<ReplayNodeId> node;  // the node it last ran on
  UnixSeconds arrival = kForever;    // first entry into the scheduling queue
  UnixSeconds bound = kForever;      // last binding
  UnixSeconds started = kForever;
  UnixSeconds finished = kForever;
  std::uint32_t failed_attempts = 0;  // scheduling attempts that found no node
  std::uint32_t evictions = 0;        // times it was preempted (and created again)

  bool done() const { return finished < kForever; }
  /// Arrival → binding, counted up to `end` (a pod unbound then waits to it; 0 if it had not
  /// arrived).
  double waitUntil(UnixSeconds end) const { return std::max(0.0, std::min(bound, end) - arrival); }
};

/// One run of the replay: first arrival to last finish of its tasks.
struct RunOutcome {
  UnixSeconds first_arrival = kForever;
  UnixSeconds last_finish = 0;
  bool complete = false;  // every task finished in the replay
  /// last_finish − first_arrival; for an incomplete run up to the last task that finished.
  double makespan = 0;
};

struct ReplayResult {
  std::vector<PodOutcome> pods;  // by ReplayPodId
  std::vector<RunOutcome> runs;  // by ReplayRunId
  std::size_t events = 0;
  std::size_t attempts = 0;     // scheduling attempts, successful or not
  std::size_t preemptions = 0;  // attempts that evicted pods
  std::vector<ReplayPodId> never_scheduled;
};

/// Replays `input` as one deterministic discrete-event simulation: fixed pods occupy their
/// nodes over their observed lifetimes; standalone pods and root tasks arrive when they were
/// created, every other task `handoff` after its last parent finished, each first attempted
/// `queue_latency` after arriving; the queue, filters, scores and preemption of `profile` place
/// them; a bound pod starts `start_delay` later and
/// holds its requests for `run_seconds` (an unknown run time holds them to the window's end, and
/// for its lower bound `run_seconds` at least).
/// Among equally scored nodes the pod's observed node wins (whatever prefer_observed_node says);
/// other ties go to a hash of pod and node (a deterministic stand-in for kube-scheduler's
/// random pick).
/// Fails on an input whose references are out of range.
Result<ReplayResult> replay(const ReplayInput& input, const SchedulerProfile& profile = {});

}  // namespace dagadvisor::replay
