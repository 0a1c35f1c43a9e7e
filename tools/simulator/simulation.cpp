#include "simulation.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <queue>
#include <set>

#include "builders.h"
#include "patches.h"
#include "rng.h"
#include "scheduler.h"

namespace dagadvisor::sim {
namespace {

// kube-scheduler requeues an unschedulable pod at the latest after this long.
constexpr double kMaxUnschedulableSeconds = 300;
constexpr double kMaxBackoffSeconds = 10;
// How long finished pods stay, by engine, unless the scenario says otherwise.
constexpr double kPodGcSeconds[] = {1800, 600, 3, 3600};
// An evicted pod stays (phase Failed) this long; its controller's replacement comes this soon.
constexpr double kEvictedGcSeconds = 600;
constexpr double kControllerReactionSeconds = 1;

enum class EventType { kRunArrival, kTryPod, kStart, kFinish, kDelete, kRetry };

struct Event {
  double time;
  std::uint64_t seq;
  EventType type;
  int target;
  int stamp;  // for kTryPod: the attempt count the event was scheduled for
  bool operator>(const Event& o) const { return time != o.time ? time > o.time : seq > o.seq; }
};

class Simulation {
 public:
  Simulation(const Scenario& s, Policy policy, const Advice& advice)
      : s_(s),
        policy_(policy),
        advice_(advice),
        classes_(clusterPriorityClasses(s)),
        nodes_(buildNodes(s, advice_)),
        scheduler_(nodes_, pods_,
                   s.scheduler.tieBreakStream == 0
                       ? s.seed
                       : hashKeys(s.seed, 52, s.scheduler.tieBreakStream)) {
    advice_.createPriorityClasses(classes_);
  }

  History run(const std::string& changes) {
    for (auto& p : buildLongRunningPods(s_, advice_, classes_, nodes_)) {
      addPod(std::move(p));
    }
    scheduleArrivals();
    while (!events_.empty() && events_.top().time <= s_.duration) {
      Event e = events_.top();
      events_.pop();
      dispatch(e);
    }
    History h;
    h.scenario = &s_;
    h.policy = policy_;
    h.changes = changes;
    h.applied = advice_.report();
    h.priorityClasses = classes_;
    h.preemptions = preemptions_;
    h.end = s_.duration;
    h.nodes = std::move(nodes_);
    h.pods = std::move(pods_);
    h.runs = std::move(runs_);
    h.attempts = std::move(attempts_);
    h.sli = std::move(sli_);
    return h;
  }

 private:
  void push(double time, EventType type, int target, int stamp = 0) {
    events_.push(Event{time, seq_++, type, target, stamp});
  }

  void addPod(Pod p) {
    p.id = static_cast<int>(pods_.size());
    double created = p.created;
    pods_.push_back(std::move(p));
    push(created + queueDelay(pods_.back()), EventType::kTryPod, pods_.back().id);
  }

  // Time from entering the queue to the first attempt: small, unless a latency spike is on.
  double queueDelay(const Pod& p) const {
    Rng rng(hashKeys(s_.seed, 61, hashText(p.uid)));
    double delay = rng.logNormal(s_.scheduler.baseLatencySeconds, 0.5);
    for (const auto& spike : s_.scheduler.spikes) {
      if (p.created >= spike.at && p.created < spike.at + spike.duration) {
        delay += spike.extraSeconds * (0.5 + rng.uniform());
      }
    }
    return delay;
  }

  double attemptSeconds(const Pod& p) const {
    Rng rng(hashKeys(s_.seed, 62, hashText(p.uid), static_cast<std::uint64_t>(p.attempts)));
    double scale = std::log10(static_cast<double>(nodes_.size()) + 10.0);
    return rng.logNormal(0.002 * scale, 0.4);
  }

  void scheduleArrivals() {
    runs_ = arrivingRuns(s_);
    for (std::size_t i = 0; i < runs_.size(); ++i) {
      push(runs_[i].arrival, EventType::kRunArrival, static_cast<int>(i));
    }
  }

  void dispatch(const Event& e) {
    switch (e.type) {
      case EventType::kRunArrival:
        arrive(e.target, e.time);
        break;
      case EventType::kTryPod:
        if (pods_[static_cast<std::size_t>(e.target)].attempts == e.stamp) {
          tryPod(e.target, e.time);
        }
        break;
      case EventType::kStart:
        if (!pods_[static_cast<std::size_t>(e.target)].evicted) {
          pods_[static_cast<std::size_t>(e.target)].started = e.time;
        }
        break;
      case EventType::kFinish:
        if (!pods_[static_cast<std::size_t>(e.target)].evicted) {
          finish(e.target, e.time);
        }
        break;
      case EventType::kDelete:
        remove(e.target, e.time);
        break;
      case EventType::kRetry:
        retryPending(e.time);
        break;
    }
  }

  void arrive(int runIndex, double t) {
    Run& r = runs_[static_cast<std::size_t>(runIndex)];
    for (std::size_t task = 0; task < r.parentsLeft.size(); ++task) {
      if (r.parentsLeft[task] == 0) {
        createTask(runIndex, static_cast<int>(task), t + 1);
      }
    }
  }

  void createTask(int runIndex, int task, double t) {
    const Run& r = runs_[static_cast<std::size_t>(runIndex)];
    Pod p = makeTaskPod(s_, r, task, t, advice_, classes_);
    p.run = runIndex;
    p.task = task;
    runs_[static_cast<std::size_t>(runIndex)].taskPods[static_cast<std::size_t>(task)] =
        static_cast<int>(pods_.size());
    addPod(std::move(p));
  }

  const TaskSpec& taskSpec(const Pod& p) const {
    const Run& r = runs_[static_cast<std::size_t>(p.run)];
    return s_.workflows[static_cast<std::size_t>(r.workflow)]
        .tasks[static_cast<std::size_t>(p.task)];
  }

  std::vector<int> parentPods(const Pod& p) const {
    std::vector<int> out;
    if (p.run < 0) {
      return out;
    }
    const Run& r = runs_[static_cast<std::size_t>(p.run)];
    const auto& tasks = s_.workflows[static_cast<std::size_t>(r.workflow)].tasks;
    for (const auto& parent : taskSpec(p).parents) {
      for (std::size_t i = 0; i < tasks.size(); ++i) {
        if (tasks[i].id == parent) {
          out.push_back(r.taskPods[i]);
        }
      }
    }
    return out;
  }

  void tryPod(int id, double t) {
    const Pod& candidate = pods_[static_cast<std::size_t>(id)];
    if (candidate.scheduled != kNever || candidate.deleted != kNever) {
      return;
    }
    const double took = attemptSeconds(candidate);
    const int node = chooseNode(id, t);
    Pod& p = pods_[static_cast<std::size_t>(id)];  // after chooseNode: pods_ may have grown
    p.attempts++;
    p.lastAttempt = t;
    attempts_.push_back(Attempt{t + took, node >= 0, took});
    if (node < 0) {
      if (p.unschedulableSince == kNever) {
        p.unschedulableSince = t + took;
      }
      p.unschedulablePlugin = scheduler_.rejectingPlugin(p);
      pending_.insert(queueKey(p));
      push(t + kMaxUnschedulableSeconds, EventType::kTryPod, id, p.attempts);
      return;
    }
    pending_.erase(queueKey(p));
    scheduler_.bind(p, node);
    p.scheduled = t + took;
    sli_.push_back(SliObservation{p.scheduled, p.attempts, p.scheduled - p.created});
    push(p.scheduled + startupSeconds(p), EventType::kStart, id);
    if (p.kind == PodKind::kTask) {
      push(p.scheduled + startupSeconds(p) + runSeconds(p), EventType::kFinish, id);
    }
  }

  int pinnedNode(const Pod& p) const {
    for (std::size_t i = 0; i < nodes_.size(); ++i) {
      if (nodes_[i].name == p.pinnedNode) {
        return podFits(p, nodes_[i]) ? static_cast<int>(i) : -1;
      }
    }
    return -1;
  }

  // Filter and score, else preempt. Preemption creates the victims' replacements, so pods_ may
  // grow here: no reference into it may be held across this call.
  int chooseNode(int id, double t) {
    const Pod& p = pods_[static_cast<std::size_t>(id)];
    const int node = p.pinnedNode.empty() ? scheduler_.place(p) : pinnedNode(p);
    return node >= 0 ? node : preempt(id, t);
  }

  // DefaultPreemption: the victims are evicted at once and the preemptor takes their room in
  // the same attempt (their termination grace period is not modelled). Returns the node, or -1.
  int preempt(int id, double t) {
    Preemption pre = scheduler_.preemption(pods_[static_cast<std::size_t>(id)]);
    for (int victim : pre.victims) {
      evict(victim, t);
    }
    return pre.node;
  }

  // The victim fails; its controller (DaemonSet, ReplicaSet) or its workflow engine (a retry of
  // the task, run again from the start) creates a replacement with the same spec.
  void evict(int id, double t) {
    Pod& v = pods_[static_cast<std::size_t>(id)];
    scheduler_.release(v);
    v.evicted = true;
    v.finished = t;
    v.deleted = t + kEvictedGcSeconds;
    ++preemptions_;
    const double reaction =
        v.kind == PodKind::kTask
            ? engineReactionSeconds(runs_[static_cast<std::size_t>(v.run)].engine)
            : kControllerReactionSeconds;
    Pod replacement = replacementOf(v, ++generation_, t + reaction);
    if (replacement.kind == PodKind::kTask) {
      runs_[static_cast<std::size_t>(replacement.run)]
          .taskPods[static_cast<std::size_t>(replacement.task)] = static_cast<int>(pods_.size());
    }
    addPod(std::move(replacement));
  }

  double startupSeconds(const Pod& p) const {
    Rng rng(hashKeys(s_.seed, 63, hashText(p.uid)));
    return s_.scheduler.podStartupSeconds * (0.8 + 0.4 * rng.uniform());
  }

  // The task's own run time plus the time to fetch each parent's output from another node. An
  // output on the pod's own node arrives at once (it still crosses the pod's network interface).
  double runSeconds(Pod& p) {
    const Run& r = runs_[static_cast<std::size_t>(p.run)];
    const auto& tasks = s_.workflows[static_cast<std::size_t>(r.workflow)].tasks;
    double transfer = 0;
    p.fetches.clear();
    for (int parentId : parentPods(p)) {
      const Pod& parent = pods_[static_cast<std::size_t>(parentId)];
      const double gb = tasks[static_cast<std::size_t>(parent.task)].outputGb;
      double seconds = 0;
      if (parent.node != p.node) {
        bool sameZone = nodes_[static_cast<std::size_t>(parent.node)].zone ==
                        nodes_[static_cast<std::size_t>(p.node)].zone;
        seconds =
            gb * (sameZone ? s_.network.sameZoneSecondsPerGb : s_.network.crossZoneSecondsPerGb);
      }
      transfer += seconds;
      p.fetches.push_back({gb * kBytesPerGb, seconds});
    }
    p.transferSeconds = transfer;
    return r.baseRuntime[static_cast<std::size_t>(p.task)] + transfer;
  }

  void finish(int id, double t) {
    Pod& p = pods_[static_cast<std::size_t>(id)];
    p.finished = t;
    scheduler_.release(p);
    requestRetry(t);
    // createTask grows pods_, so nothing may hold a reference into it below.
    const int runIndex = p.run;
    const int finishedTask = p.task;
    Run& r = runs_[static_cast<std::size_t>(runIndex)];
    const auto& w = s_.workflows[static_cast<std::size_t>(r.workflow)];
    double gc = w.podGcSeconds >= 0 ? w.podGcSeconds : kPodGcSeconds[static_cast<int>(r.engine)];
    if (r.engine == Engine::kAirflow) {
      push(t + gc, EventType::kDelete, id);
    }
    const std::string& finishedId = w.tasks[static_cast<std::size_t>(finishedTask)].id;
    bool allDone = true;
    for (std::size_t task = 0; task < w.tasks.size(); ++task) {
      const auto& parents = w.tasks[task].parents;
      if (std::find(parents.begin(), parents.end(), finishedId) != parents.end() &&
          --r.parentsLeft[task] == 0) {
        createTask(runIndex, static_cast<int>(task), t + engineReactionSeconds(r.engine));
      }
      int podId = r.taskPods[task];
      allDone = allDone && podId >= 0 && pods_[static_cast<std::size_t>(podId)].finished != kNever;
    }
    if (allDone) {
      r.finished = t;
      if (r.engine != Engine::kAirflow) {
        for (int podId : r.taskPods) {
          push(t + gc, EventType::kDelete, podId);
        }
      }
    }
  }

  void remove(int id, double t) {
    Pod& p = pods_[static_cast<std::size_t>(id)];
    p.deleted = t;
  }

  void requestRetry(double t) {
    if (!pending_.empty() && lastRetryRequest_ != t) {
      lastRetryRequest_ = t;
      push(t, EventType::kRetry, -1);
    }
  }

  // Freed resources move unschedulable pods back to the active queue (after their backoff),
  // highest priority first, then oldest first: the PrioritySort queue order.
  void retryPending(double t) {
    std::vector<int> ready;
    for (const auto& key : pending_) {
      const Pod& p = pods_[static_cast<std::size_t>(std::get<2>(key))];
      double backoff = std::min(kMaxBackoffSeconds, std::pow(2.0, p.attempts - 1));
      if (t - p.lastAttempt >= backoff) {
        ready.push_back(p.id);
      } else {
        push(p.lastAttempt + backoff, EventType::kTryPod, p.id, p.attempts);
      }
    }
    for (int id : ready) {
      tryPod(id, t);
    }
  }

  std::tuple<int, double, int> queueKey(const Pod& p) const {
    return {-p.priority, p.created, p.id};
  }

  const Scenario& s_;
  Policy policy_;
  AdviceApplier advice_;
  std::vector<PriorityClassSpec> classes_;
  std::vector<Node> nodes_;
  std::vector<Pod> pods_;
  Scheduler scheduler_;
  std::vector<Run> runs_;
  std::vector<Attempt> attempts_;
  std::vector<SliObservation> sli_;
  int preemptions_ = 0;
  int generation_ = 0;
  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> events_;
  std::set<std::tuple<int, double, int>> pending_;
  std::uint64_t seq_ = 0;
  double lastRetryRequest_ = -kNever;
};

}  // namespace

double engineReactionSeconds(Engine engine) {
  constexpr double kSeconds[] = {2, 1, 5, 1};  // seed, argo, airflow, tekton
  return kSeconds[static_cast<int>(engine)];
}

double receivedBytes(const std::vector<Fetch>& fetches, double elapsed) {
  double bytes = 0;
  for (const Fetch& f : fetches) {
    if (elapsed >= f.seconds) {
      bytes += f.bytes;
      elapsed -= f.seconds;
      continue;
    }
    return bytes + f.bytes * std::max(0.0, elapsed) / f.seconds;
  }
  return bytes;
}

ModelledUsage modelledUsage(const Resources& request, double cpuUtil) {
  constexpr double kMinCores = 0.01;
  constexpr double kMinWorkingSet = 16.0 * 1048576;
  constexpr double kWorkingSetShare = 0.6;
  return ModelledUsage{std::max(kMinCores, request.cpu * cpuUtil),
                       std::floor(std::max(kMinWorkingSet, request.memory * kWorkingSetShare))};
}

History simulate(const Scenario& scenario, Policy policy) {
  if (policy == Policy::kBaseline) {
    return Simulation(scenario, policy, Advice{"baseline", {}, {}}).run("baseline");
  }
  return Simulation(scenario, policy, remediesAdvice(scenario)).run("remedied");
}

History simulate(const Scenario& scenario, const Advice& advice) {
  return Simulation(scenario, Policy::kBaseline, advice).run(advice.source);
}

std::string sanitizeLabelKey(const std::string& key) {
  std::string underscored;
  for (char c : key) {
    underscored += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  }
  std::string out;
  for (std::size_t i = 0; i < underscored.size(); ++i) {
    char c = underscored[i];
    if (i > 0 && std::isupper(static_cast<unsigned char>(c)) &&
        (std::islower(static_cast<unsigned char>(underscored[i - 1])) ||
         std::isdigit(static_cast<unsigned char>(underscored[i - 1])))) {
      out += '_';
    }
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

}  // namespace dagadvisor::sim
