#include "report/report_dot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <unordered_set>
#include <vector>

namespace dagadvisor::report {
namespace {

std::string escaped(std::string_view text) {
  std::string out;
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
    }
    out += (c == '\n' || c == '\r') ? ' ' : c;
  }
  return out;
}

std::string dotString(std::string_view text) {
  return '"' + escaped(text) + '"';
}

// A DOT label of several lines; each line is escaped on its own so "\n" stays a line break.
std::string lines(std::initializer_list<std::string_view> parts) {
  std::string out = "\"";
  bool first = true;
  for (const auto part : parts) {
    out += (first ? "" : "\\n") + escaped(part);
    first = false;
  }
  return out + '"';
}

std::string seconds(double value) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0fs", value);
  return buf;
}

// White (no wait) to orange (the run's longest wait), so waiting tasks stand out at a glance.
std::string fillColour(double queue, double max_queue) {
  const double t = max_queue > 0 ? std::clamp(queue / max_queue, 0.0, 1.0) : 0.0;
  const auto channel = [t](int from, int to) {
    return static_cast<int>(std::lround(from + (to - from) * t));
  };
  char buf[16];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", channel(255, 253), channel(255, 141),
                channel(255, 60));
  return buf;
}

// Which tasks to draw: all of them, or for big runs the critical path plus the longest waiters.
std::vector<bool> chooseTasks(const report::RunSummary& run, std::size_t max_tasks) {
  const auto& rows = run.task_rows;
  std::vector<bool> keep(rows.size(), rows.size() <= max_tasks);
  if (rows.size() <= max_tasks) {
    return keep;
  }
  std::size_t kept = 0;
  for (std::size_t i = 0; i < rows.size() && kept < max_tasks; ++i) {
    if (rows[i].on_critical_path) {
      keep[i] = true;
      ++kept;
    }
  }
  std::vector<std::size_t> order(rows.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return rows[a].queue_seconds > rows[b].queue_seconds;
  });
  for (std::size_t i : order) {
    if (kept >= max_tasks) {
      break;
    }
    kept += keep[i] ? 0 : 1;
    keep[i] = true;
  }
  return keep;
}

}  // namespace

std::string renderDot(const report::RunSummary& run, std::size_t max_tasks) {
  const auto& rows = run.task_rows;
  const std::vector<bool> keep = chooseTasks(run, max_tasks);
  double max_queue = 0;
  for (const auto& t : rows) {
    max_queue = std::max(max_queue, t.queue_seconds);
  }
  std::string out = "digraph " + dotString(run.id) + " {\n";
  out += "  graph [rankdir=LR, fontname=\"Helvetica\", label=" +
         dotString(run.id + (run.finished ? "  makespan " : "  unfinished, elapsed ") +
                   seconds(run.makespan_seconds) + ", critical path " +
                   seconds(run.critical_path_seconds)) +
         ", labelloc=t];\n";
  out += "  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", fontsize=10];\n";
  std::unordered_set<std::string_view> drawn;
  std::size_t hidden = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& t = rows[i];
    if (!keep[i]) {
      ++hidden;
      continue;
    }
    drawn.insert(t.id);
    const std::string timing =
        "run " + seconds(t.run_seconds) + ", wait " + seconds(t.queue_seconds);
    out += "  " + dotString(t.id) +
           " [label=" + lines({t.id, t.node.empty() ? "(unscheduled)" : t.node, timing}) +
           ", fillcolor=" + dotString(fillColour(t.queue_seconds, max_queue)) +
           (t.on_critical_path ? ", color=\"#d62728\", penwidth=2.5" : "") + "];\n";
  }
  std::unordered_set<std::string> critical_edges;  // consecutive pairs of the critical path
  for (std::size_t i = 1; i < run.critical_path.size(); ++i) {
    critical_edges.insert(run.critical_path[i - 1] + '\0' + run.critical_path[i]);
  }
  for (const auto& e : run.edge_rows) {
    if (!drawn.contains(e.parent) || !drawn.contains(e.child)) {
      continue;
    }
    const bool hot = critical_edges.contains(e.parent + '\0' + e.child);
    out += "  " + dotString(e.parent) + " -> " + dotString(e.child) +
           (hot ? " [color=\"#d62728\", penwidth=2.5]" : (e.inferred ? " [style=dashed]" : "")) +
           ";\n";
  }
  if (hidden > 0) {
    out += "  \"__more__\" [shape=note, style=filled, fillcolor=\"#eeeeee\", label=" +
           dotString(std::to_string(hidden) + " more tasks not drawn") + "];\n";
  }
  return out + "}\n";
}

}  // namespace dagadvisor::report
