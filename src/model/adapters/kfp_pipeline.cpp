#include <cctype>
#include <map>
#include <set>

#include "model/adapters/object_json.h"

namespace dagadvisor::model {
namespace {

using detail::json;
using detail::member;
using detail::text;

constexpr std::string_view kDriverSuffix = "-driver";

std::string userTask(std::string name) {
  if (name.size() > kDriverSuffix.size() &&
      name.compare(name.size() - kDriverSuffix.size(), kDriverSuffix.size(), kDriverSuffix) == 0) {
    name.resize(name.size() - kDriverSuffix.size());
  }
  return name;
}

// Task names in an Argo `depends` expression ("a.Succeeded && (b || !c.Failed)"): the operands,
// without their optional `.Result`.
std::vector<std::string> dependsOperands(std::string_view expression) {
  std::vector<std::string> out;
  std::string token;
  auto flush = [&] {
    if (!token.empty()) {
      out.push_back(token.substr(0, token.find('.')));
      token.clear();
    }
  };
  for (char c : expression) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.') {
      token += c;
    } else {
      flush();
    }
  }
  flush();
  return out;
}

WorkflowObject fromIr(const json& tasks) {
  WorkflowObject out;
  for (const auto& [name, task] : tasks.items()) {
    ObjectTask t;
    t.id = name;
    if (const json* deps = member(task, "dependentTasks"); deps && deps->is_array()) {
      for (const json& parent : *deps) {
        if (parent.is_string()) {
          t.parents.push_back(parent.get<std::string>());
        }
      }
    }
    out.tasks.push_back(std::move(t));
  }
  return out;
}

// KFP compiles user task T into a driver task `T-driver` carrying T's dependencies and an
// executor task `T` depending on the driver; folding both into T leaves the user's edges.
WorkflowObject fromCompiled(const json& tasks) {
  std::map<std::string, std::set<std::string>> parents;
  for (const json& task : tasks) {
    const std::string id = userTask(text(task, "name"));
    auto& mine = parents[id];
    for (const std::string& operand : dependsOperands(text(task, "depends"))) {
      if (userTask(operand) != id) {
        mine.insert(userTask(operand));
      }
    }
  }
  WorkflowObject out;
  for (auto& [id, set] : parents) {
    out.tasks.push_back(ObjectTask{id, {set.begin(), set.end()}, "", {}, {}, "", 0});
  }
  return out;
}

const json* compiledRootTasks(const json& workflow) {
  const json* spec = member(workflow, "spec");
  const json* templates = spec ? member(*spec, "templates") : nullptr;
  if (templates == nullptr || !templates->is_array()) {
    return nullptr;
  }
  for (const json& templ : *templates) {
    const json* dag = member(templ, "dag");
    if (text(templ, "name") == "root" && dag != nullptr) {
      const json* tasks = member(*dag, "tasks");
      return tasks && tasks->is_array() ? tasks : nullptr;
    }
  }
  return nullptr;
}

}  // namespace

Result<WorkflowObject> parseKfpPipeline(const json& pipeline) {
  const json* root = member(pipeline, "root");
  const json* dag = root ? member(*root, "dag") : nullptr;
  const json* ir_tasks = dag ? member(*dag, "tasks") : nullptr;
  WorkflowObject out;
  if (ir_tasks != nullptr && ir_tasks->is_object()) {
    out = fromIr(*ir_tasks);
    const json* info = member(pipeline, "pipelineInfo");
    out.name = info ? text(*info, "name") : "";
  } else if (const json* tasks = compiledRootTasks(pipeline)) {
    out = fromCompiled(*tasks);
    const json* metadata = member(pipeline, "metadata");
    out.name = metadata ? text(*metadata, "name") : "";
    if (out.name.empty() && metadata) {
      out.name = text(*metadata, "generateName");
    }
  } else {
    return makeError(
        "neither a KFP pipeline spec (root.dag.tasks) nor a compiled KFP workflow "
        "(a \"root\" DAG template)",
        "root");
  }
  out.engine = "kubeflow";
  detail::normalise(out);
  return out;
}

}  // namespace dagadvisor::model
