#include "replay/replay.h"

#include <algorithm>
#include <limits>
#include <queue>
#include <string>
#include <string_view>

#include "common/fnv1a.h"
#include "replay/filter.h"
#include "replay/node_groups.h"
#include "replay/node_state.h"
#include "replay/pod_affinity_score.h"
#include "replay/preemption.h"
#include "replay/transfer.h"

namespace dagadvisor::replay {
namespace {

enum class EventKind { kArrive, kFirstAttempt, kFinish, kFixedBind, kFixedRelease, kBackoffDue };

struct Event {
  UnixSeconds time = 0;
  std::uint64_t seq = 0;  // insertion order: equal times replay in the order they were made
  EventKind kind = EventKind::kArrive;
  ReplayPodId pod = 0;
  std::uint32_t generation = 0;  // kFinish: stale once the pod was evicted

  bool operator>(const Event& o) const { return time != o.time ? time > o.time : seq > o.seq; }
};

// FNV-1a over pod and node names: the tie-break must not favour low node indices, or every
// tie would stack pods on the first node. Each name ends with the byte 0xff, which no name holds,
// so that ("ab", "c") and ("a", "bc") differ.
std::uint64_t tieHash(const std::string& pod, const std::string& node) {
  constexpr std::string_view kEnd = "\xff";
  return fnv1a(kEnd, fnv1a(node, fnv1a(kEnd, fnv1a(pod))));
}

Result<void> validate(const ReplayInput& in) {
  for (const ReplayPod& p : in.pods) {
    if (p.observed_node && *p.observed_node >= in.nodes.size()) {
      return makeError("observed node out of range", "pod " + p.namespace_ + "/" + p.name);
    }
    for (ReplayPodId id : p.parents) {
      if (id >= in.pods.size()) {
        return makeError("parent out of range", "pod " + p.namespace_ + "/" + p.name);
      }
    }
    for (ReplayPodId id : p.children) {
      if (id >= in.pods.size()) {
        return makeError("child out of range", "pod " + p.namespace_ + "/" + p.name);
      }
    }
  }
  for (const ReplayRun& r : in.runs) {
    for (ReplayPodId id : r.tasks) {
      if (id >= in.pods.size()) {
        return makeError("task out of range", "run " + r.id);
      }
    }
  }
  return {};
}

class Engine {
 public:
  Engine(const ReplayInput& in, const SchedulerProfile& profile)
      : in_(in),
        profile_(profile),
        states_(in.nodes.size()),
        queue_(in.pods.size(), profile.backoff, profile.queue_order),
        parents_left_(in.pods.size()),
        last_parent_(in.pods.size(), -kForever),
        generation_(in.pods.size()),
        bound_at_(in.pods.size(), kForever),
        evictable_(in.pods.size()),
        group_of_(groups_.add(in)),
        eligibility_(in, groups_, group_of_),
        group_changed_(groups_.size()),
        eligible_(in.pods.size()),
        looked_up_(in.pods.size()),
        failed_at_(in.pods.size(), kNeverFailed),
        failed_resolvable_(in.pods.size()),
        pod_affinity_(std::any_of(in.pods.begin(), in.pods.end(), [](const ReplayPod& p) {
          return !p.preferred_pod_affinity.empty();
        })) {
    out_.pods.resize(in.pods.size());
  }

  ReplayResult run() {
    seed();
    while (!events_.empty()) {
      const UnixSeconds now = events_.top().time;
      while (!events_.empty() && events_.top().time == now) {
        const Event e = events_.top();
        events_.pop();
        ++out_.events;
        handle(e);
      }
      scheduleAll(now);
    }
    out_.never_scheduled = queue_.parked();
    summarizeRuns();
    return std::move(out_);
  }

 private:
  void push(UnixSeconds time, EventKind kind, ReplayPodId pod, std::uint32_t generation = 0) {
    events_.push(Event{time, seq_++, kind, pod, generation});
  }

  void seed() {
    for (ReplayPodId id = 0; id < in_.pods.size(); ++id) {
      const ReplayPod& p = in_.pods[id];
      if (p.role == PodRole::kFixed) {
        if (p.observed_node) {
          push(p.observed_bound, EventKind::kFixedBind, id);
          if (p.observed_released < kForever) {
            push(p.observed_released, EventKind::kFixedRelease, id);
          }
        }
        continue;
      }
      evictable_[id] = 1;
      parents_left_[id] = static_cast<std::uint32_t>(p.parents.size());
      if (p.parents.empty()) {
        push(p.arrival, EventKind::kArrive, id);
      }
    }
  }

  void handle(const Event& e) {
    switch (e.kind) {
      case EventKind::kArrive:
        out_.pods[e.pod].arrival = std::min(out_.pods[e.pod].arrival, e.time);
        if (in_.pods[e.pod].queue_latency > 0) {
          push(e.time + in_.pods[e.pod].queue_latency, EventKind::kFirstAttempt, e.pod);
        } else {
          queue_.activate(e.pod, in_.pods[e.pod].priority, e.time);
        }
        break;
      case EventKind::kFirstAttempt:
      case EventKind::kBackoffDue:
        queue_.activate(e.pod, in_.pods[e.pod].priority, e.time);
        break;
      case EventKind::kFinish:
        if (e.generation == generation_[e.pod]) {
          finish(e.pod, e.time);
        }
        break;
      case EventKind::kFixedBind:
        bindFixed(e.pod, e.time);
        break;
      case EventKind::kFixedRelease:
        states_[*in_.pods[e.pod].observed_node].remove(e.pod, in_.pods[e.pod].requests);
        changed(*in_.pods[e.pod].observed_node);
        out_.pods[e.pod].finished = e.time;
        resourcesFreed(e.time);
        break;
    }
  }

  void bindFixed(ReplayPodId id, UnixSeconds now) {
    const ReplayPod& p = in_.pods[id];
    states_[*p.observed_node].add(id, p.requests);
    changed(*p.observed_node);
    bound_at_[id] = now;
    PodOutcome& o = out_.pods[id];
    o.node = p.observed_node;
    o.arrival = o.bound = o.started = now;
  }

  void finish(ReplayPodId id, UnixSeconds now) {
    const ReplayPod& p = in_.pods[id];
    states_[*out_.pods[id].node].remove(id, p.requests);
    changed(*out_.pods[id].node);
    out_.pods[id].finished = now;
    for (ReplayPodId child : p.children) {
      last_parent_[child] = std::max(last_parent_[child], now);
      if (--parents_left_[child] == 0) {
        push(last_parent_[child] + in_.pods[child].handoff, EventKind::kArrive, child);
      }
    }
    resourcesFreed(now);
  }

  // A pod left a node: the pods parked for resources try again once their backoff is over.
  void resourcesFreed(UnixSeconds now) {
    for (const auto& [pod, due] : queue_.releaseParked(now)) {
      if (due <= now) {
        queue_.activate(pod, in_.pods[pod].priority, now);
      } else {
        push(due, EventKind::kBackoffDue, pod);
      }
    }
  }

  void scheduleAll(UnixSeconds now) {
    while (auto pod = queue_.pop()) {
      attempt(*pod, now);
    }
  }

  void attempt(ReplayPodId id, UnixSeconds now) {
    ++out_.attempts;
    if (failsAsBefore(id)) {
      ++out_.pods[id].failed_attempts;
      queue_.park(id, failed_resolvable_[id] != 0, now);
      return;
    }
    const ReplayPod& pod = in_.pods[id];
    const bool observed_fits = profile_.prefer_observed_node && pod.observed_node &&
                               filterNode(pod, in_.nodes[*pod.observed_node],
                                          states_[*pod.observed_node]) == FilterResult::kFits;
    if (observed_fits && pod.preferred_pod_affinity.empty() && !pod.rescored) {
      bind(id, *pod.observed_node, now);
      return;
    }
    const bool resolvable_rejection = findFeasible(id);
    if (observed_fits && !pod.rescored && !termsRankAbove(pod, *pod.observed_node)) {
      bind(id, *pod.observed_node, now);
      return;
    }
    if (!feasible_.empty()) {
      bind(id, pickNode(pod), now);
      return;
    }
    if (resolvable_rejection && profile_.preemption && in_.pods[id].preempts && preempt(id, now)) {
      return;
    }
    ++out_.pods[id].failed_attempts;
    queue_.park(id, resolvable_rejection, now);
    failed_at_[id] = change_clock_;
    failed_resolvable_[id] = resolvable_rejection ? 1 : 0;
  }

  void changed(ReplayNodeId node) { group_changed_[group_of_[node]] = ++change_clock_; }

  // An attempt fails exactly as the pod's last one did when no node it could ever use has
  // changed since (a failed attempt tries every node and leaves the filter's start where it
  // was, and preemption sees the same nodes): it is counted without filtering thousands of
  // nodes again. This is what keeps a pod parked for a full pool from costing every finish
  // elsewhere in a large cluster a scan of all nodes.
  bool failsAsBefore(ReplayPodId id) {
    const EligibleGroups* eligible = eligibleFor(id);
    if (failed_at_[id] == kNeverFailed || eligible == nullptr) {
      return false;
    }
    return std::all_of(eligible->groups.begin(), eligible->groups.end(),
                       [&](NodeGroup g) { return group_changed_[g] <= failed_at_[id]; });
  }

  // The node groups pod `id` may use; null for a pod whose placement names single nodes (its
  // nodes are filtered one by one).
  const EligibleGroups* eligibleFor(ReplayPodId id) {
    if (looked_up_[id] == 0) {
      looked_up_[id] = 1;
      eligible_[id] = readsHostname(in_.pods[id]) ? nullptr : &eligibility_.of(in_.pods[id]);
    }
    return eligible_[id];
  }

  // kube-scheduler's filtering: from where the last cycle stopped, round the node list until
  // feasibleNodesToFind() nodes pass (or every node was tried). Returns whether any rejection
  // was one a pod leaving could lift.
  bool findFeasible(ReplayPodId id) {
    const ReplayPod& pod = in_.pods[id];
    const EligibleGroups* eligible = eligibleFor(id);
    feasible_.clear();
    const std::size_t want =
        feasibleNodesToFind(in_.schedulerNodes(), profile_.percentage_of_nodes_to_score);
    if (eligible != nullptr) {
      return findFeasibleAmong(pod, eligible->static_nodes, want);
    }
    bool resolvable_rejection = false;
    const std::size_t n = in_.nodes.size();
    std::size_t tried = 0;
    for (; tried < n && feasible_.size() < want; ++tried) {
      const auto node = static_cast<ReplayNodeId>((next_start_ + tried) % n);
      const FilterResult r = filterNode(pod, in_.nodes[node], states_[node]);
      if (r == FilterResult::kFits) {
        feasible_.push_back(node);
      } else {
        resolvable_rejection = resolvable_rejection || resolvable(r);
      }
    }
    next_start_ = n > 0 ? (next_start_ + tried) % n : 0;
    return resolvable_rejection;
  }

  // The same walk over the nodes the static filters pass (`candidates`, ascending) alone: the
  // others reject the pod for a reason no pod leaving lifts, so skipping them changes nothing
  // but the cost, and where the next walk starts is counted over every node as before.
  bool findFeasibleAmong(const ReplayPod& pod, const std::vector<ReplayNodeId>& candidates,
                         std::size_t want) {
    const std::size_t n = in_.nodes.size();
    bool resolvable_rejection = false;
    std::size_t tried = n;  // every node, unless `want` feasible ones are found first
    const auto start = static_cast<std::size_t>(
        std::lower_bound(candidates.begin(), candidates.end(), next_start_) - candidates.begin());
    for (std::size_t i = 0; i < candidates.size() && feasible_.size() < want; ++i) {
      const ReplayNodeId node = candidates[(start + i) % candidates.size()];
      const FilterResult r =
          filterResources(pod, in_.nodes[node], states_[node].requested, states_[node].pods.size());
      if (r != FilterResult::kFits) {
        resolvable_rejection = resolvable_rejection || resolvable(r);
        continue;
      }
      feasible_.push_back(node);
      if (feasible_.size() == want) {
        tried = (node + n - next_start_) % n + 1;
      }
    }
    next_start_ = n > 0 ? (next_start_ + tried) % n : 0;
    return resolvable_rejection;
  }

  // Whether the pod's preferred pod affinity terms score some feasible node above `observed`:
  // the observed choice stands for what the model cannot see, the terms for what a change adds.
  bool termsRankAbove(const ReplayPod& pod, ReplayNodeId observed) const {
    std::vector<ReplayNodeId> candidates(feasible_);
    candidates.push_back(observed);
    const auto scores = interPodAffinityScores(pod, candidates, in_.nodes, states_, in_.pods);
    return *std::max_element(scores.begin(), scores.end()) > scores.back();
  }

  ReplayNodeId pickNode(const ReplayPod& pod) const {
    const auto scores =
        scoreNodes(pod, feasible_, {in_.nodes, states_, in_.pods, pod_affinity_}, profile_.weights);
    std::size_t best = 0;
    for (std::size_t i = 1; i < feasible_.size(); ++i) {
      if (scores[i] > scores[best] || (scores[i] == scores[best] && preferOnTie(pod, i, best))) {
        best = i;
      }
    }
    return feasible_[best];
  }

  bool preferOnTie(const ReplayPod& pod, std::size_t candidate, std::size_t best) const {
    const ReplayNodeId a = feasible_[candidate];
    const ReplayNodeId b = feasible_[best];
    if (pod.observed_node == a || pod.observed_node == b) {
      return pod.observed_node == a;
    }
    return tieHash(pod.name, in_.nodes[a].name) < tieHash(pod.name, in_.nodes[b].name);
  }

  bool preempt(ReplayPodId id, UnixSeconds now) {
    const EligibleGroups* eligible = eligibleFor(id);
    const PreemptionView view{in_.pods,
                              in_.nodes,
                              states_,
                              bound_at_,
                              evictable_,
                              group_of_,
                              eligible != nullptr ? &eligible->static_filter : nullptr};
    const auto plan = planPreemption(in_.pods[id], view);
    if (!plan) {
      return false;
    }
    for (ReplayPodId victim : plan->victims) {
      evict(victim, now);
    }
    ++out_.preemptions;
    bind(id, plan->node, now);
    resourcesFreed(now);
    return true;
  }

  // The victim's controller (Job, workflow engine) creates it again: it queues anew and, once
  // bound, runs its whole run time again.
  void evict(ReplayPodId id, UnixSeconds now) {
    PodOutcome& o = out_.pods[id];
    states_[*o.node].remove(id, in_.pods[id].requests);
    changed(*o.node);
    ++generation_[id];
    ++o.evictions;
    o.node.reset();
    o.bound = o.started = kForever;
    queue_.recreate(id);
    failed_at_[id] = kNeverFailed;
    queue_.activate(id, in_.pods[id].priority, now);
  }

  void bind(ReplayPodId id, ReplayNodeId node, UnixSeconds now) {
    const ReplayPod& p = in_.pods[id];
    states_[node].add(id, p.requests);
    changed(node);
    bound_at_[id] = now;
    PodOutcome& o = out_.pods[id];
    o.node = node;
    o.bound = now;
    o.started = now + p.start_delay;
    const UnixSeconds run_end = o.started + runSecondsOn(p, node);
    const UnixSeconds end =
        p.basis == RunTimeBasis::kUnknown ? std::max(in_.window_end, run_end) : run_end;
    push(end, EventKind::kFinish, id, generation_[id]);
  }

  // The run time less what the observed placement cost to fetch the parents' outputs, plus
  // what `node` costs, the parents where the replay put them.
  double runSecondsOn(const ReplayPod& p, ReplayNodeId node) const {
    if (!p.observed_transfer_seconds) {
      return p.run_seconds;
    }
    std::vector<ReplayNodeId> parent_nodes;
    for (ReplayPodId parent : p.parents) {
      if (!out_.pods[parent].node) {
        return p.run_seconds;
      }
      parent_nodes.push_back(*out_.pods[parent].node);
    }
    const auto here = transferSeconds(p, node, parent_nodes, in_.nodes);
    return here ? std::max(0.0, p.run_seconds - *p.observed_transfer_seconds + *here)
                : p.run_seconds;
  }

  void summarizeRuns() {
    for (const ReplayRun& r : in_.runs) {
      RunOutcome o;
      o.complete = !r.tasks.empty();
      for (ReplayPodId id : r.tasks) {
        const PodOutcome& p = out_.pods[id];
        o.first_arrival = std::min(o.first_arrival, p.arrival);
        o.complete = o.complete && p.done();
        if (p.done()) {
          o.last_finish = std::max(o.last_finish, p.finished);
        }
      }
      o.makespan = o.first_arrival < kForever ? std::max(0.0, o.last_finish - o.first_arrival) : 0;
      out_.runs.push_back(o);
    }
  }

  const ReplayInput& in_;
  const SchedulerProfile& profile_;
  std::vector<NodeState> states_;
  SchedulingQueue queue_;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events_;
  std::uint64_t seq_ = 0;
  std::vector<std::uint32_t> parents_left_;
  std::vector<UnixSeconds> last_parent_;
  std::vector<std::uint32_t> generation_;
  std::vector<UnixSeconds> bound_at_;
  std::vector<std::uint8_t> evictable_;
  std::vector<ReplayNodeId> feasible_;
  std::size_t next_start_ = 0;
  // Which attempts cannot succeed: node groups, the change clock of each, and per pod the
  // clock at its last failed attempt and the groups it could ever use.
  static constexpr std::uint64_t kNeverFailed = std::numeric_limits<std::uint64_t>::max();
  NodeGroups groups_;
  std::vector<NodeGroup> group_of_;
  PodEligibility eligibility_;
  std::vector<std::uint64_t> group_changed_;
  std::uint64_t change_clock_ = 0;
  std::vector<const EligibleGroups*>
      eligible_;  // by pod, once looked up: null for one naming nodes
  std::vector<std::uint8_t> looked_up_;
  std::vector<std::uint64_t> failed_at_;
  std::vector<std::uint8_t> failed_resolvable_;
  bool pod_affinity_;  // any preferred pod affinity term: InterPodAffinity scores
  ReplayResult out_;
};

}  // namespace

Result<ReplayResult> replay(const ReplayInput& input, const SchedulerProfile& profile) {
  if (auto valid = validate(input); !valid.ok()) {
    return valid.error();
  }
  return Engine(input, profile).run();
}

}  // namespace dagadvisor::replay
