#include "app/plan_json.h"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>

namespace dagadvisor::app {
namespace {

using nlohmann::json;

std::string at(const std::string& list, std::size_t i) {
  return list + "[" + std::to_string(i) + "]";
}

// Unknown keys are errors: a misspelt "transfer" would otherwise silently mean 0.
Result<void> checkObject(const json& value, const std::string& path,
                         std::initializer_list<const char*> allowed) {
  if (!value.is_object()) {
    return makeError("expected an object", path);
  }
  for (const auto& item : value.items()) {
    if (std::none_of(allowed.begin(), allowed.end(),
                     [&](const char* key) { return item.key() == key; })) {
      std::string keys;
      for (const char* key : allowed) {
        keys += (keys.empty() ? "" : ", ") + std::string(key);
      }
      return makeError("unknown key (expected " + keys + ")", path + "." + item.key());
    }
  }
  return {};
}

Result<std::string> requiredString(const json& object, const std::string& path, const char* key) {
  const auto it = object.find(key);
  if (it == object.end()) {
    return makeError("missing", path + "." + key);
  }
  if (!it->is_string()) {
    return makeError("expected a string", path + "." + key);
  }
  return it->get<std::string>();
}

// A missing list is an error unless `optional`; returns null for an absent optional list.
Result<const json*> arrayAt(const json& root, const char* key, bool optional) {
  const auto it = root.find(key);
  if (it == root.end()) {
    return optional ? Result<const json*>(nullptr) : makeError("missing", key);
  }
  if (!it->is_array()) {
    return makeError("expected an array", key);
  }
  return &*it;
}

Result<double> costNumber(const json& value, const std::string& path) {
  if (value.is_null()) {
    return std::numeric_limits<double>::infinity();  // cannot run on this processor
  }
  if (!value.is_number()) {
    return makeError("expected a number or null", path);
  }
  return value.get<double>();
}

Result<std::vector<double>> costs(const json& task, const std::string& path) {
  const auto it = task.find("cost");
  if (it == task.end()) {
    return makeError("missing", path);
  }
  if (!it->is_array()) {
    auto single = costNumber(*it, path);
    return single ? Result<std::vector<double>>(std::vector<double>{*single}) : single.error();
  }
  std::vector<double> out;
  for (std::size_t k = 0; k < it->size(); ++k) {
    auto c = costNumber((*it)[k], at(path, k));
    if (!c) {
      return c.error();
    }
    out.push_back(*c);
  }
  return out;
}

Result<void> decodeProcessors(const json& list, graph::Plan& plan) {
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string path = at("processors", i);
    if (auto ok = checkObject(list[i], path, {"name"}); !ok) {
      return ok.error();
    }
    auto name = requiredString(list[i], path, "name");
    if (!name) {
      return name.error();
    }
    plan.processors.push_back(std::move(name).value());
  }
  return {};
}

Result<void> decodeTasks(const json& list, graph::Plan& plan) {
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string path = at("tasks", i);
    if (auto ok = checkObject(list[i], path, {"id", "cost"}); !ok) {
      return ok.error();
    }
    auto id = requiredString(list[i], path, "id");
    if (!id) {
      return id.error();
    }
    auto cost = costs(list[i], path + ".cost");
    if (!cost) {
      return cost.error();
    }
    plan.tasks.push_back({std::move(id).value(), std::move(cost).value()});
  }
  return {};
}

Result<void> decodeEdges(const json& list, graph::Plan& plan) {
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string path = at("edges", i);
    if (auto ok = checkObject(list[i], path, {"from", "to", "transfer"}); !ok) {
      return ok.error();
    }
    auto from = requiredString(list[i], path, "from");
    auto to = requiredString(list[i], path, "to");
    if (!from || !to) {
      return !from ? from.error() : to.error();
    }
    const json transfer = list[i].value("transfer", json(0));
    if (!transfer.is_number()) {
      return makeError("expected a number", path + ".transfer");
    }
    plan.edges.push_back({std::move(from).value(), std::move(to).value(), transfer.get<double>()});
  }
  return {};
}

Result<graph::Plan> decodePlan(const json& root) {
  if (auto ok = checkObject(root, "plan", {"description", "processors", "tasks", "edges"}); !ok) {
    return ok.error();
  }
  graph::Plan plan;
  auto processors = arrayAt(root, "processors", false);
  auto tasks = arrayAt(root, "tasks", false);
  auto edges = arrayAt(root, "edges", true);
  for (const auto* list : {&processors, &tasks, &edges}) {
    if (!*list) {
      return list->error();
    }
  }
  if (auto ok = decodeProcessors(**processors, plan); !ok) {
    return ok.error();
  }
  if (auto ok = decodeTasks(**tasks, plan); !ok) {
    return ok.error();
  }
  if (*edges != nullptr) {
    if (auto ok = decodeEdges(**edges, plan); !ok) {
      return ok.error();
    }
  }
  return plan;
}

}  // namespace

Result<graph::Plan> parsePlanJson(std::string_view text) {
  json root;
  try {
    root = json::parse(text);
  } catch (const json::exception& e) {
    // nlohmann prefixes "[json.exception.parse_error.101] "; the rest names line and column.
    const std::string what = e.what();
    const auto bracket = what.find("] ");
    return makeError(bracket == std::string::npos ? what : what.substr(bracket + 2));
  }
  return decodePlan(root);
}

}  // namespace dagadvisor::app
