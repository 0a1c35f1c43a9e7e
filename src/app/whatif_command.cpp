#include "app/whatif_command.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <initializer_list>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "app/app.h"
#include "graph/heft.h"

namespace dagadvisor::app {
namespace {

using nlohmann::json;
using OrderedJson = nlohmann::ordered_json;

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

// Integers print as integers, fractions with at most three decimals, huge values in %g form.
std::string number(double value) {
  char buf[64];
  std::snprintf(buf, sizeof buf, std::fabs(value) < 1e15 ? "%.3f" : "%.6g", value);
  std::string s = buf;
  if (s.find('.') != std::string::npos && s.find('e') == std::string::npos) {
    s.erase(s.find_last_not_of('0') + 1);
    if (s.back() == '.') {
      s.pop_back();
    }
  }
  return s == "-0" ? "0" : s;
}

std::string counted(std::size_t n, const std::string& noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

struct View {
  const graph::CompiledPlan& plan;
  const graph::HeftSchedule& schedule;
};

// Rows in time order, the way one reads a Gantt chart.
std::vector<graph::ScheduledTask> byStart(const graph::HeftSchedule& s) {
  std::vector<graph::ScheduledTask> rows = s.placement;
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    return a.start != b.start ? a.start < b.start : a.processor < b.processor;
  });
  return rows;
}

// ordered_json keeps the keys in the order documented in docs/whatif.md.
OrderedJson scheduleJson(const View& v) {
  OrderedJson out = {{"makespan", v.schedule.makespan}, {"processors", v.plan.processor_names}};
  OrderedJson& rows = out["schedule"] = OrderedJson::array();
  for (const auto& st : byStart(v.schedule)) {
    rows.push_back({{"task", v.plan.task_ids[st.task]},
                    {"processor", v.plan.processor_names[st.processor]},
                    {"start", st.start},
                    {"finish", st.finish}});
  }
  OrderedJson& ranks = out["upward_rank"] = OrderedJson::array();
  for (graph::TaskIndex t : v.schedule.priority) {
    ranks.push_back({{"task", v.plan.task_ids[t]}, {"rank", v.schedule.upward_rank[t]}});
  }
  OrderedJson& path = out["critical_path"] = {{"length", v.schedule.critical_path_length}};
  path["tasks"] = OrderedJson::array();
  for (graph::TaskIndex t : v.schedule.critical_path) {
    path["tasks"].push_back(v.plan.task_ids[t]);
  }
  OrderedJson& idle = out["idle_slots"] = OrderedJson::array();
  for (const auto& slot : v.schedule.idle_slots) {
    idle.push_back({{"processor", v.plan.processor_names[slot.processor]},
                    {"start", slot.start},
                    {"finish", slot.finish}});
  }
  return out;
}

std::string padded(const std::string& s, std::size_t width) {
  return s.size() >= width ? s + " " : s + std::string(width - s.size() + 1, ' ');
}

void writeTable(std::ostream& out, const View& v) {
  const auto& s = v.schedule;
  std::size_t task_w = 4;
  std::size_t proc_w = 9;
  for (const auto& id : v.plan.task_ids) {
    task_w = std::max(task_w, id.size());
  }
  for (const auto& name : v.plan.processor_names) {
    proc_w = std::max(proc_w, name.size());
  }
  out << "HEFT schedule: " << counted(v.plan.task_ids.size(), "task") << " on "
      << counted(v.plan.processor_names.size(), "processor") << ", makespan " << number(s.makespan)
      << "\n\n"
      << padded("task", task_w) << padded("processor", proc_w) << padded("start", 9)
      << padded("finish", 9) << "upward rank\n";
  for (const auto& st : byStart(s)) {
    out << padded(v.plan.task_ids[st.task], task_w)
        << padded(v.plan.processor_names[st.processor], proc_w) << padded(number(st.start), 9)
        << padded(number(st.finish), 9) << number(s.upward_rank[st.task]) << "\n";
  }
  out << "\ncritical path (mean costs, length " << number(s.critical_path_length) << "): ";
  for (std::size_t i = 0; i < s.critical_path.size(); ++i) {
    out << (i == 0 ? "" : " → ") << v.plan.task_ids[s.critical_path[i]];
  }
  out << "\nidle slots:" << (s.idle_slots.empty() ? " none" : "") << "\n";
  for (const auto& slot : s.idle_slots) {
    out << "  " << padded(v.plan.processor_names[slot.processor], proc_w) << number(slot.start)
        << " – " << number(slot.finish) << "\n";
  }
}

Result<std::string> readText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return makeError("cannot read the plan file");
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
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

int runWhatIfCommand(const std::string& plan_path, const std::string& output_format,
                     std::ostream& out, std::ostream& err) {
  auto fail = [&](const Error& e) {
    err << "dagadvisor: whatif: " << plan_path << ": " << e.describe() << "\n";
    return kExitUsage;
  };
  if (output_format != "table" && output_format != "json") {
    return fail(
        makeError("unknown output format \"" + output_format + "\" (json or table)", "--output"));
  }
  auto text = readText(plan_path);
  if (!text) {
    return fail(text.error());
  }
  auto plan = parsePlanJson(*text);
  if (!plan) {
    return fail(plan.error());
  }
  auto compiled = graph::compilePlan(*plan);
  if (!compiled) {
    return fail(compiled.error());
  }
  auto schedule = graph::scheduleHeft(compiled->problem());
  if (!schedule) {  // compilePlan checks everything HEFT does; this would be a bug
    err << "dagadvisor: whatif: " << schedule.error().describe() << "\n";
    return kExitFailure;
  }
  const View view{*compiled, *schedule};
  if (output_format == "json") {
    out << scheduleJson(view).dump(2, ' ', false, json::error_handler_t::replace) << "\n";
  } else {
    writeTable(out, view);
  }
  return kExitOk;
}

}  // namespace dagadvisor::app
