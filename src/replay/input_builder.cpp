#include "replay/input_builder.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <unordered_map>

#include "graph/run_estimates.h"
#include "replay/run_completion.h"
#include "replay/transfer.h"

namespace dagadvisor::replay {
namespace {

using model::TaskIndex;

constexpr std::int64_t kSystemNodeCritical = 2000001000;
constexpr std::int64_t kSystemClusterCritical = 2000000000;

// Where each snapshot pod sits in the runs: the run and task of its latest attempt.
struct TaskRef {
  std::size_t run = 0;
  TaskIndex task = 0;
};

std::int64_t priorityOf(const std::string& cls, const InputOptions& options) {
  if (auto it = options.priority_values.find(cls); it != options.priority_values.end()) {
    return it->second;
  }
  if (cls == "system-node-critical") {
    return kSystemNodeCritical;
  }
  return cls == "system-cluster-critical" ? kSystemClusterCritical : 0;
}

double median(std::vector<double> values) {
  if (values.empty()) {
    return 0;
  }
  const auto mid = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), mid, values.end());
  return *mid;
}

ReplayNode nodeOf(const model::Node& n, const InputOptions& options) {
  const std::string zone(n.labels.get(options.zone_label).value_or(""));
  return {n.name,          n.allocatable, options.max_pods_per_node, n.labels, n.taints,
          n.unschedulable, zone};
}

// A pod seen on a tainted node must have tolerated its NoSchedule/NoExecute taints (taints
// added after binding are rare): without this an unchanged replay could not put it back.
void inferTolerations(ReplayPod& pod, const model::Node& node) {
  for (const model::Taint& t : node.taints) {
    if (t.effect == "NoSchedule" || t.effect == "NoExecute") {
      pod.tolerations.push_back({t.key, TolerationOp::kEqual, t.value, t.effect});
      pod.tolerations_inferred = true;
    }
  }
}

// The tolerations kube-state-metrics exported. An operator the replay does not know (Gt, Lt)
// tolerates nothing here, the safe side for a filter.
void copyTolerations(ReplayPod& pod, const std::vector<model::Toleration>& tolerations) {
  for (const model::Toleration& t : tolerations) {
    if (t.operator_ == "Exists") {
      pod.tolerations.push_back({t.key, TolerationOp::kExists, "", t.effect});
    } else if (t.operator_.empty() || t.operator_ == "Equal") {
      pod.tolerations.push_back({t.key, TolerationOp::kEqual, t.value, t.effect});
    }
  }
}

void addExtendedResourceToleration(ReplayPod& pod, const InputOptions& options) {
  if (options.extended_resource_toleration && pod.requests.gpus > 0) {
    pod.tolerations.push_back({"nvidia.com/gpu", TolerationOp::kExists, "", ""});
  }
}

// Copies what every role shares; times and role are the caller's.
// The label keys some node shows (kube-state-metrics exports only allow-listed node labels): a
// selector on any other key is not checked, as the analysis does not check it either, or every
// pod selecting `kubernetes.io/os` would be unplaceable on a cluster that does not export it.
std::vector<std::string> nodeLabelKeys(const model::ClusterSnapshot& cluster) {
  std::vector<std::string> keys;
  for (const model::Node& n : cluster.nodes()) {
    for (const auto& item : n.labels.items()) {
      keys.push_back(item.first);
    }
  }
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

ReplayPod podOf(const model::Pod& p, model::PodId id, const model::ClusterSnapshot& cluster,
                const std::vector<std::string>& node_label_keys, const InputOptions& options) {
  ReplayPod out;
  out.namespace_ = p.namespace_;
  out.name = p.name;
  out.source = id;
  out.owner_kind = p.owner_kind;
  out.owner_name = p.owner_name;
  out.labels = p.labels;
  out.requests = p.requests;
  out.priority_class = p.priority_class;
  out.priority = priorityOf(p.priority_class, options);
  if (p.node != model::kNoNode) {
    out.observed_node = p.node;
  }
  if (p.tolerations) {
    copyTolerations(out, *p.tolerations);  // as read: admission plugins already added theirs
  } else {
    if (p.node != model::kNoNode) {
      inferTolerations(out, cluster.node(p.node));
    }
    addExtendedResourceToleration(out, options);
  }
  if (p.node_selector) {
    for (const auto& [key, value] : p.node_selector->items()) {
      if (std::binary_search(node_label_keys.begin(), node_label_keys.end(), key)) {
        out.node_selector.emplace_back(key, value);
      }
    }
  }
  return out;
}

bool terminal(const model::Pod& p) {
  return p.phase == model::PodPhase::kSucceeded || p.phase == model::PodPhase::kFailed;
}

// Fixed pods keep their node and lifetime; everything else is scheduled again.
PodRole roleOf(const model::Pod& p, UnixSeconds window_start) {
  if (p.node == model::kNoNode) {
    return PodRole::kStandalone;
  }
  if (p.owner_kind == "DaemonSet" || p.created.value_or(window_start) < window_start) {
    return PodRole::kFixed;
  }
  return PodRole::kStandalone;
}

class Builder {
 public:
  Builder(const model::ClusterSnapshot& cluster, const std::vector<graph::RunGraph>& runs,
          const InputOptions& options)
      : cluster_(cluster),
        runs_(runs),
        options_(options),
        node_label_keys_(nodeLabelKeys(cluster)) {}

  ReplayInput build() {
    indexTasks();
    for (const graph::RunGraph& g : runs_) {
      estimates_.add(g, cluster_);
    }
    in_.window_end = cluster_.at();
    in_.window_start = windowStart();
    for (const model::Node& n : cluster_.nodes()) {
      in_.nodes.push_back(nodeOf(n, options_));
    }
    measureDelays();
    for (model::PodId id = 0; id < cluster_.pods().size(); ++id) {
      addPod(id);
    }
    linkRuns();
    if (const std::size_t added = completeRunningRuns(in_); added > 0) {
      in_.notes.push_back(std::to_string(added) +
                          " tasks not created by the window's end taken from finished runs of "
                          "their DAGs");
    }
    return std::move(in_);
  }

 private:
  void indexTasks() {
    task_of_.assign(cluster_.pods().size(), std::nullopt);
    for (std::size_t r = 0; r < runs_.size(); ++r) {
      const model::WorkflowRun& run = *runs_[r].run;
      for (TaskIndex t = 0; t < run.tasks.size(); ++t) {
        task_of_[run.tasks[t].pod] = TaskRef{r, t};
      }
    }
  }

  UnixSeconds windowStart() const {
    UnixSeconds start = cluster_.at();
    for (model::PodId id = 0; id < cluster_.pods().size(); ++id) {
      const model::Pod& p = cluster_.pod(id);
      if (task_of_[id] && p.created) {
        start = std::min(start, *p.created);
      }
    }
    return start;
  }

  // The medians stand in for pods whose own delay was not observed.
  void measureDelays() {
    std::vector<double> starts;
    std::vector<double> handoffs;
    for (const model::Pod& p : cluster_.pods()) {
      if (p.scheduled && p.started) {
        starts.push_back(std::max(0.0, *p.started - *p.scheduled));
      }
    }
    for (const graph::RunGraph& g : runs_) {
      for (TaskIndex t = 0; t < g.graph.size(); ++t) {
        if (auto h = measuredHandoff(g, t)) {
          handoffs.push_back(*h);
        }
      }
    }
    median_start_delay_ = median(std::move(starts));
    median_handoff_ = median(std::move(handoffs));
  }

  std::optional<double> measuredHandoff(const graph::RunGraph& g, TaskIndex t) const {
    const model::Pod& child = cluster_.pod(g.run->tasks[t].pod);
    if (g.graph.parents(t).size() == 0 || !child.created) {
      return std::nullopt;
    }
    double last = -kForever;
    for (TaskIndex parent : g.graph.parents(t)) {
      const model::Pod& p = cluster_.pod(g.run->tasks[parent].pod);
      if (!p.finished) {
        return std::nullopt;
      }
      last = std::max(last, *p.finished);
    }
    return std::max(0.0, *child.created - last);
  }

  void addPod(model::PodId id) {
    const model::Pod& p = cluster_.pod(id);
    if (!p.created && p.node == model::kNoNode) {
      in_.notes.push_back("pod " + p.key() + " has no creation time: not replayed");
      return;
    }
    if (p.node == model::kNoNode && !p.node_name.empty()) {
      in_.notes.push_back("pod " + p.key() + " ran on node " + p.node_name +
                          ", missing from the snapshot: not replayed");
      return;
    }
    ReplayPod pod = podOf(p, id, cluster_, node_label_keys_, options_);
    pod.role = task_of_[id] ? PodRole::kTask : roleOf(p, in_.window_start);
    if (pod.role == PodRole::kFixed) {
      if (!fixedLifetime(p, pod)) {
        return;
      }
    } else {
      timeReplayed(p, id, pod);
    }
    replay_id_[id] = static_cast<ReplayPodId>(in_.pods.size());
    in_.pods.push_back(std::move(pod));
  }

  bool fixedLifetime(const model::Pod& p, ReplayPod& pod) {
    pod.observed_bound = p.scheduled.value_or(p.started.value_or(p.created.value_or(0)));
    if (p.finished) {
      pod.observed_released = std::max(*p.finished, pod.observed_bound);
    } else if (terminal(p)) {
      in_.notes.push_back("pod " + p.key() + " ended without a finish time: not replayed");
      return false;
    }
    return true;
  }

  void timeReplayed(const model::Pod& p, model::PodId id, ReplayPod& pod) {
    pod.arrival = p.created.value_or(p.scheduled.value_or(in_.window_start));
    if (p.created && p.scheduled) {
      pod.observed_queue_seconds = std::max(0.0, *p.scheduled - *p.created);
    }
    pod.start_delay =
        p.scheduled && p.started ? std::max(0.0, *p.started - *p.scheduled) : median_start_delay_;
    if (p.finished) {
      // A pod that ended before its container started (an image that never pulled) held its
      // node from binding: that is its run.
      const UnixSeconds from = p.started.value_or(p.scheduled.value_or(pod.arrival));
      pod.run_seconds = std::max(0.0, *p.finished - from);
      pod.basis = RunTimeBasis::kObserved;
      return;
    }
    // Ended without a finish time (a gap in the data): no time so far to count, and it must not
    // hold a node to the window's end either.
    const bool ended = terminal(p);
    const double elapsed = p.started && !ended ? std::max(0.0, cluster_.at() - *p.started) : 0;
    std::optional<double> estimate;
    if (task_of_[id]) {
      estimate = estimates_.estimate(runs_[task_of_[id]->run], task_of_[id]->task, cluster_);
    }
    if (estimate) {
      pod.run_seconds = std::max(*estimate, elapsed);
      pod.basis = RunTimeBasis::kEstimated;
    } else if (p.started || ended) {
      pod.run_seconds = elapsed;
      pod.basis = RunTimeBasis::kElapsed;
    } else {
      pod.run_seconds = task_of_[id] ? estimates_.lowerBound(runs_[task_of_[id]->run],
                                                             task_of_[id]->task, cluster_)
                                     : 0;
      pod.basis = RunTimeBasis::kUnknown;
    }
  }

  void linkRuns() {
    for (const graph::RunGraph& g : runs_) {
      ReplayRun run;
      run.id = g.run->id();
      run.dag = g.run->namespace_ + "/" + g.run->dag;
      run.run_labels = g.run->selector;
      run.observed_finished = g.finished;
      run.observed_makespan = g.makespan;
      const auto run_id = static_cast<ReplayRunId>(in_.runs.size());
      for (TaskIndex t = 0; t < g.graph.size(); ++t) {
        if (auto it = replay_id_.find(g.run->tasks[t].pod); it != replay_id_.end()) {
          linkTask(g, t, it->second, run_id);
          run.tasks.push_back(it->second);
        }
      }
      in_.runs.push_back(std::move(run));
    }
  }

  void linkTask(const graph::RunGraph& g, TaskIndex t, ReplayPodId id, ReplayRunId run) {
    ReplayPod& pod = in_.pods[id];
    pod.run = run;
    pod.task = g.run->tasks[t].id;
    for (TaskIndex parent : g.graph.parents(t)) {
      if (auto it = replay_id_.find(g.run->tasks[parent].pod); it != replay_id_.end()) {
        pod.parents.push_back(it->second);
        in_.pods[it->second].children.push_back(id);
      }
    }
    if (!pod.parents.empty()) {
      pod.handoff = measuredHandoff(g, t).value_or(median_handoff_);
      const model::NetworkReceive* received = cluster_.networkReceive(g.run->tasks[t].pod);
      if (options_.transfer_prices.priced() && received != nullptr &&
          !g.run->hasInferredParent(t)) {
        pod.prices = options_.transfer_prices;
        pod.bytes_per_parent = received->bytes / static_cast<double>(g.graph.parents(t).size());
        pod.observed_transfer_seconds = observedTransfer(pod);
      } else if (auto cost = options_.cross_zone_seconds.find(g.run->tasks[t].pod);
                 cost != options_.cross_zone_seconds.end()) {
        pod.cross_zone_seconds = cost->second;
        pod.observed_transfer_seconds = observedTransfer(pod);
      }
    }
  }

  // What the crossing cost where the pod and its parents were observed; nullopt when a node is
  // unknown (a pod never placed, a node gone) or transferSeconds() cannot compare zones.
  std::optional<double> observedTransfer(const ReplayPod& pod) const {
    if (!pod.observed_node) {
      return std::nullopt;
    }
    std::vector<ReplayNodeId> parent_nodes;
    for (ReplayPodId parent : pod.parents) {
      if (!in_.pods[parent].observed_node) {
        return std::nullopt;
      }
      parent_nodes.push_back(*in_.pods[parent].observed_node);
    }
    return transferSeconds(pod, *pod.observed_node, parent_nodes, in_.nodes);
  }

  const model::ClusterSnapshot& cluster_;
  const std::vector<graph::RunGraph>& runs_;
  const InputOptions& options_;
  std::vector<std::string> node_label_keys_;
  ReplayInput in_;
  graph::RunTimeEstimates estimates_;
  std::vector<std::optional<TaskRef>> task_of_;
  std::unordered_map<model::PodId, ReplayPodId> replay_id_;
  double median_start_delay_ = 0;
  double median_handoff_ = 0;
};

}  // namespace

Result<ReplayInput> buildReplayInput(const model::ClusterSnapshot& cluster,
                                     const std::vector<graph::RunGraph>& runs,
                                     const InputOptions& options) {
  if (cluster.nodes().empty()) {
    return makeError("the snapshot holds no node: nothing to replay on");
  }
  return Builder(cluster, runs, options).build();
}

}  // namespace dagadvisor::replay
