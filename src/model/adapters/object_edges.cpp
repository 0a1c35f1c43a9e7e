#include "model/adapters/object_edges.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <iterator>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "model/adapters/adapter_registry.h"
#include "model/adapters/inferred_edges.h"

namespace dagadvisor::model {
namespace {

constexpr std::size_t kListedIds = 5;

std::string objectKey(std::string_view engine, std::string_view namespace_, std::string_view name) {
  std::string key;
  key.reserve(engine.size() + namespace_.size() + name.size() + 2);
  key.append(engine).append(1, '\n').append(namespace_).append(1, '\n').append(name);
  return key;
}

// Objects by engine, namespace and name, one table per scope; a later duplicate wins.
class ObjectIndex {
 public:
  explicit ObjectIndex(const std::vector<SourcedObject>& objects) {
    for (const SourcedObject& o : objects) {
      tables_[static_cast<std::size_t>(o.scope)]
             [objectKey(o.object.engine, o.namespace_, o.object.name)] = &o;
    }
  }

  const SourcedObject* find(const WorkflowRun& run) const {
    const std::string dag_run = run.dag + "/" + run.run;
    const std::array<std::string_view, kScopes> names = {run.run, dag_run, run.dag};
    for (std::size_t scope = 0; scope < kScopes; ++scope) {
      for (std::string_view ns : {std::string_view(run.namespace_), std::string_view()}) {
        const auto& table = tables_[scope];
        if (auto it = table.find(objectKey(run.engine, ns, names[scope])); it != table.end()) {
          return it->second;
        }
      }
    }
    return nullptr;
  }

 private:
  // Indexed by ObjectScope, narrowest first.
  static constexpr std::size_t kScopes = 3;
  std::array<std::unordered_map<std::string, const SourcedObject*>, kScopes> tables_;
};

std::string listIds(const std::vector<std::string_view>& ids) {
  std::string out;
  for (std::size_t i = 0; i < ids.size() && i < kListedIds; ++i) {
    out.append(i == 0 ? "" : ", ").append(ids[i]);
  }
  if (ids.size() > kListedIds) {
    out += ", … (" + std::to_string(ids.size() - kListedIds) + " more)";
  }
  return out;
}

void dropInferred(WorkflowRun& run) {
  const auto inferred = [](const Edge& e) {
    return e.inferred;
  };
  if (std::none_of(run.edges.begin(), run.edges.end(), inferred)) {
    return;
  }
  std::erase_if(run.edges, inferred);
  std::erase_if(run.problems, [](const std::string& p) {
    return p.find(kInferredEdgesNote) != std::string::npos;
  });
}

void applyObject(WorkflowRun& run, const WorkflowObject& object) {
  dropInferred(run);
  std::unordered_map<std::string_view, TaskIndex> index;
  for (TaskIndex t = 0; t < run.tasks.size(); ++t) {
    index.emplace(run.tasks[t].id, t);
  }
  std::unordered_set<std::uint64_t> edges;
  const auto key = [](TaskIndex p, TaskIndex c) {
    return (std::uint64_t{p} << 32) | c;
  };
  for (const Edge& e : run.edges) {
    edges.insert(key(e.parent, e.child));
  }
  std::vector<std::string_view> without_pod;
  std::vector<bool> named(run.tasks.size(), false);
  for (const ObjectTask& task : object.tasks) {
    const auto child = index.find(task.id);
    if (child == index.end()) {
      without_pod.push_back(task.id);
      continue;
    }
    named[child->second] = true;
    Task& target = run.tasks[child->second];
    target.attempts = std::max(target.attempts, task.attempts);
    target.parent_ids = task.parents;
    for (const std::string& parent : task.parents) {
      const auto from = index.find(parent);
      // A parent without a pod is already reported once, as a task without a pod.
      if (from != index.end() && edges.insert(key(from->second, child->second)).second) {
        run.edges.push_back(Edge{from->second, child->second, false});
      }
    }
  }
  std::vector<std::string_view> unnamed;
  for (TaskIndex t = 0; t < run.tasks.size(); ++t) {
    if (!named[t]) {
      unnamed.push_back(run.tasks[t].id);
    }
  }
  const std::string what = object.engine + " object " + object.name;
  if (!without_pod.empty()) {
    run.problems.push_back(
        std::to_string(without_pod.size()) + " task(s) of the " + what +
        " have no pod (not run, skipped, or gone before the lookback): " + listIds(without_pod));
  }
  if (!unnamed.empty()) {
    run.problems.push_back(std::to_string(unnamed.size()) + " task(s) with pods are not in the " +
                           what + ", so they have no known dependencies: " + listIds(unnamed));
  }
  for (const std::string& problem : object.problems) {
    run.problems.push_back(what + ": " + problem);
  }
}

}  // namespace

std::vector<bool> applyWorkflowObjects(std::vector<WorkflowRun>& runs,
                                       const std::vector<SourcedObject>& objects) {
  std::vector<bool> described(runs.size(), false);
  if (objects.empty()) {
    return described;
  }
  const ObjectIndex index(objects);
  for (std::size_t r = 0; r < runs.size(); ++r) {
    if (const SourcedObject* object = index.find(runs[r])) {
      applyObject(runs[r], object->object);
      described[r] = true;
    }
  }
  return described;
}

std::vector<WorkflowRun> buildRunsWithObjects(const ClusterSnapshot& cluster,
                                              const config::WorkflowLabels& keys,
                                              std::span<const ObjectSourcePtr> sources,
                                              std::vector<std::string>& warnings) {
  config::WorkflowLabels without_inference = keys;
  without_inference.infer_edges = false;
  std::vector<WorkflowRun> runs = buildRuns(cluster, without_inference);
  std::vector<SourcedObject> objects;
  for (const ObjectSourcePtr& source : sources) {
    ObjectFetch fetched = source->fetch(runs);
    std::move(fetched.objects.begin(), fetched.objects.end(), std::back_inserter(objects));
    std::move(fetched.warnings.begin(), fetched.warnings.end(), std::back_inserter(warnings));
  }
  const std::vector<bool> described = applyWorkflowObjects(runs, objects);
  for (std::size_t r = 0; r < runs.size(); ++r) {
    if (!described[r]) {  // buildRuns' own rule, for the runs no object spoke for
      inferEdgesIfMissing(runs[r], cluster, keys);
    }
  }
  return runs;
}

}  // namespace dagadvisor::model
