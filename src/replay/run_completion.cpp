#include "replay/run_completion.h"

#include <algorithm>
#include <map>
#include <string>
#include <unordered_map>

namespace dagadvisor::replay {
namespace {

using TaskIds = std::unordered_map<std::string, ReplayPodId>;

TaskIds taskIdsOf(const ReplayInput& in, const ReplayRun& run) {
  TaskIds ids;
  for (ReplayPodId id : run.tasks) {
    ids.emplace(in.pods[id].task, id);
  }
  return ids;
}

bool holdsEvery(const TaskIds& all, const TaskIds& some) {
  return std::all_of(some.begin(), some.end(),
                     [&](const auto& task) { return all.count(task.first) > 0; });
}

// The latest finished run of `run`'s DAG holding every task `run` has; kNoRun when none does.
ReplayRunId templateOf(const ReplayInput& in, ReplayRunId run, const TaskIds& seen) {
  for (ReplayRunId r = static_cast<ReplayRunId>(in.runs.size()); r-- > 0;) {
    const ReplayRun& other = in.runs[r];
    if (r != run && other.observed_finished && other.dag == in.runs[run].dag &&
        holdsEvery(taskIdsOf(in, other), seen)) {
      return r;
    }
  }
  return kNoRun;
}

class Completion {
 public:
  Completion(ReplayInput& in, ReplayRunId run) : in_(in), run_(run) {}

  std::size_t completeFrom(ReplayRunId from) {
    TaskIds ids = taskIdsOf(in_, in_.runs[run_]);
    const TaskIds source = taskIdsOf(in_, in_.runs[from]);
    std::vector<ReplayPodId> added;
    for (ReplayPodId id : in_.runs[from].tasks) {  // the new ids first: edges may point ahead
      if (ids.emplace(in_.pods[id].task, static_cast<ReplayPodId>(in_.pods.size())).second) {
        in_.pods.push_back(copyOf(in_.pods[id]));
        added.push_back(static_cast<ReplayPodId>(in_.pods.size() - 1));
      }
    }
    for (ReplayPodId id : added) {
      link(id, ids, source);
      in_.runs[run_].tasks.push_back(id);
    }
    return added.size();
  }

 private:
  ReplayPod copyOf(ReplayPod pod) const {
    const ReplayRun& run = in_.runs[run_];
    pod.name = run.id + "/" + pod.task;
    pod.run = run_;
    pod.unseen = true;
    pod.basis = RunTimeBasis::kEstimated;
    pod.arrival = in_.window_end;  // roots only: the others arrive after their parents
    pod.observed_node.reset();
    pod.observed_queue_seconds.reset();
    pod.rescored = false;
    pod.parents.clear();
    pod.children.clear();
    for (const auto& [key, value] : run.run_labels) {
      pod.labels.set(key, value);
    }
    return pod;
  }

  // The copy's parents as in the source run, by task id.
  void link(ReplayPodId id, const TaskIds& ids, const TaskIds& source) {
    for (ReplayPodId source_parent : in_.pods[source.at(in_.pods[id].task)].parents) {
      const ReplayPodId parent = ids.at(in_.pods[source_parent].task);
      in_.pods[id].parents.push_back(parent);
      in_.pods[parent].children.push_back(id);
    }
  }

  ReplayInput& in_;
  ReplayRunId run_;
};

}  // namespace

std::size_t completeRunningRuns(ReplayInput& input) {
  std::size_t added = 0;
  const auto observed_runs = static_cast<ReplayRunId>(input.runs.size());
  for (ReplayRunId r = 0; r < observed_runs; ++r) {
    if (input.runs[r].observed_finished || input.runs[r].dag.empty()) {
      continue;
    }
    const TaskIds seen = taskIdsOf(input, input.runs[r]);
    if (const ReplayRunId from = templateOf(input, r, seen); from != kNoRun) {
      added += Completion(input, r).completeFrom(from);
    }
  }
  return added;
}

}  // namespace dagadvisor::replay
