#include <map>
#include <set>

#include "model/adapters/object_json.h"

namespace dagadvisor::model {
namespace {

using detail::json;
using detail::member;
using detail::text;

constexpr std::string_view kRefStart = "$(tasks.";
constexpr std::string_view kRefResults = ".results.";

// The resolved spec of a PipelineRun, else its inline spec, else a Pipeline's own spec.
const json* pipelineSpec(const json& object) {
  const json* status = member(object, "status");
  const json* spec = member(object, "spec");
  for (const json* candidate : {status ? member(*status, "pipelineSpec") : nullptr,
                                spec ? member(*spec, "pipelineSpec") : nullptr}) {
    if (candidate != nullptr && candidate->is_object()) {
      return candidate;
    }
  }
  if (text(object, "kind") == "Pipeline" && spec != nullptr && member(*spec, "tasks")) {
    return spec;
  }
  return nullptr;
}

// Every task named in a result reference `$(tasks.<name>.results.<result>)` inside `task`.
std::set<std::string> resultReferences(const json& task) {
  std::set<std::string> out;
  const std::string body = task.dump();
  for (std::size_t pos = body.find(kRefStart); pos != std::string::npos;
       pos = body.find(kRefStart, pos + 1)) {
    const std::size_t name = pos + kRefStart.size();
    const std::size_t dot = body.find('.', name);
    if (dot != std::string::npos && body.compare(dot, kRefResults.size(), kRefResults) == 0) {
      out.insert(body.substr(name, dot - name));
    }
  }
  return out;
}

std::vector<ObjectTask> readTasks(const json* tasks) {
  std::vector<ObjectTask> out;
  if (tasks == nullptr || !tasks->is_array()) {
    return out;
  }
  for (const json& task : *tasks) {
    ObjectTask t;
    t.id = text(task, "name");
    if (const json* after = member(task, "runAfter"); after && after->is_array()) {
      for (const json& parent : *after) {
        if (parent.is_string()) {
          t.parents.push_back(parent.get<std::string>());
        }
      }
    }
    for (const std::string& parent : resultReferences(task)) {
      t.parents.push_back(parent);
    }
    out.push_back(std::move(t));
  }
  return out;
}

// Finally tasks run after every main task; depending on the main DAG's sinks says exactly that.
void addFinally(std::vector<ObjectTask> finally, WorkflowObject& out) {
  std::set<std::string> not_sinks;
  for (const ObjectTask& task : out.tasks) {
    not_sinks.insert(task.parents.begin(), task.parents.end());
  }
  std::vector<std::string> sinks;
  for (const ObjectTask& task : out.tasks) {
    if (!not_sinks.count(task.id)) {
      sinks.push_back(task.id);
    }
  }
  for (ObjectTask& task : finally) {
    task.parents.insert(task.parents.end(), sinks.begin(), sinks.end());
    out.tasks.push_back(std::move(task));
  }
}

// TaskRun name → pipeline task, from the run's childReferences (or the old status.taskRuns).
std::map<std::string, std::string> childTasks(const json& object) {
  std::map<std::string, std::string> out;
  const json* status = member(object, "status");
  if (status == nullptr) {
    return out;
  }
  if (const json* refs = member(*status, "childReferences"); refs && refs->is_array()) {
    for (const json& ref : *refs) {
      out[text(ref, "name")] = text(ref, "pipelineTaskName");
    }
  }
  if (const json* runs = member(*status, "taskRuns"); runs && runs->is_object()) {
    for (const auto& [name, run] : runs->items()) {
      out[name] = text(run, "pipelineTaskName");
    }
  }
  return out;
}

std::string pipelineTaskOf(const json& task_run, const std::map<std::string, std::string>& refs) {
  const json* metadata = member(task_run, "metadata");
  if (metadata == nullptr) {
    return "";
  }
  if (auto it = refs.find(text(*metadata, "name")); it != refs.end() && !it->second.empty()) {
    return it->second;
  }
  const json* labels = member(*metadata, "labels");
  return labels ? text(*labels, "tekton.dev/pipelineTask") : "";
}

void addTimings(const json& object, const std::vector<json>& task_runs, WorkflowObject& out) {
  const auto refs = childTasks(object);
  for (const json& task_run : task_runs) {
    const std::string id = pipelineTaskOf(task_run, refs);
    auto it = std::find_if(out.tasks.begin(), out.tasks.end(),
                           [&](const ObjectTask& t) { return t.id == id; });
    const json* status = member(task_run, "status");
    if (it == out.tasks.end() || status == nullptr) {
      out.problems.push_back("TaskRun for unknown pipeline task \"" + id + "\" ignored");
      continue;
    }
    it->started = detail::time(*status, "startTime");
    it->finished = detail::time(*status, "completionTime");
    const json* retries = member(*status, "retriesStatus");
    it->attempts = 1 + (retries && retries->is_array() ? retries->size() : 0);
    if (const json* conditions = member(*status, "conditions");
        conditions && conditions->is_array()) {
      for (const json& condition : *conditions) {
        if (text(condition, "type") == "Succeeded") {
          it->phase = text(condition, "reason");
        }
      }
    }
  }
}

}  // namespace

Result<WorkflowObject> parseTektonPipelineRun(const json& object,
                                              const std::vector<json>& task_runs) {
  const json* spec = pipelineSpec(object);
  if (spec == nullptr) {
    return makeError("no pipeline spec (status.pipelineSpec, spec.pipelineSpec or a Pipeline)",
                     "pipelineSpec");
  }
  WorkflowObject out;
  out.engine = "tekton";
  const json* metadata = member(object, "metadata");
  out.name = metadata ? text(*metadata, "name") : "";
  out.tasks = readTasks(member(*spec, "tasks"));
  addFinally(readTasks(member(*spec, "finally")), out);
  addTimings(object, task_runs, out);
  detail::normalise(out);
  for (const ObjectTask& task : out.tasks) {
    for (const std::string& parent : task.parents) {
      if (out.find(parent) == nullptr) {
        out.problems.push_back("task " + task.id + " refers to unknown task " + parent);
      }
    }
  }
  return out;
}

Result<WorkflowObject> parseTektonPipelineRun(const json& object) {
  return parseTektonPipelineRun(object, {});
}

}  // namespace dagadvisor::model
