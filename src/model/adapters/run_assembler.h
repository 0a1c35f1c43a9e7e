#pragma once

#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "model/cluster.h"
#include "model/workflow.h"

namespace dagadvisor::model {

/// Where one pod goes in a run: which run and task it belongs to, and how it ranks among the
/// task's other pods.
struct PodClaim {
  std::string_view dag;
  std::string_view run;
  std::string_view task;
  double order = 0;                  // among attempts of one task, the highest order is the latest
  std::vector<std::string> parents;  // declared parent task ids (the latest attempt's count)
  /// false for pods that belong to a task without being one of its attempts (a KFP driver, a
  /// Spark executor): they never count as attempts and represent the task only when nothing else
  /// does.
  bool attempt = true;
  /// WorkflowRun::selector and dag_selector: the labels of this pod that select its run's pods,
  /// and every run's pods of its DAG.
  std::vector<std::pair<std::string_view, std::string_view>> selector{};
  std::vector<std::pair<std::string_view, std::string_view>> dag_selector{};
};

/// Groups the pods one engine claims into runs (by namespace, DAG and run) and tasks, counting
/// retries as attempts. Every adapter feeds one; finish() resolves declared parents into edges.
class RunAssembler {
 public:
  explicit RunAssembler(std::string engine) : engine_(std::move(engine)) {}

  /// Adds pod `id` (which is `pod`) to the task and run that `claim` names.
  void add(const Pod& pod, PodId id, PodClaim claim);

  /// The runs sorted by namespace, DAG and run. A declared parent without a task in the run is a
  /// problem, not an edge. Leaves the assembler empty.
  std::vector<WorkflowRun> finish();

 private:
  struct Rank {
    bool attempt = false;
    double order = 0;
    auto operator<=>(const Rank&) const = default;
  };
  struct Entry {
    WorkflowRun run;
    std::unordered_map<std::string, TaskIndex> index;
    std::vector<Rank> rank;  // of each task's representative pod
  };
  using Key = std::tuple<std::string, std::string, std::string>;

  std::string engine_;
  std::map<Key, Entry> runs_;
};

}  // namespace dagadvisor::model
