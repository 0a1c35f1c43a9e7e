#include "app/whatif_command.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "app/app.h"
#include "graph/heft.h"

namespace dagadvisor::app {
namespace {

using nlohmann::json;
using OrderedJson = nlohmann::ordered_json;

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
