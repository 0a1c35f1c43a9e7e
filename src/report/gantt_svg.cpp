#include "report/gantt_svg.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <vector>

namespace dagadvisor::report {
namespace {

constexpr double kLeft = 160;  // room for node names
constexpr double kTop = 40;
constexpr double kRowHeight = 26;
constexpr double kPlotWidth = 900;

struct Bar {
  double start = 0;  // seconds since the chart's origin
  double end = 0;
  double wait_from = 0;
  const report::TaskRow* task = nullptr;
};

std::string xmlEscaped(std::string_view text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string num(double value) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", value);
  return buf;
}

std::string rect(double x, double y, double w, double h, std::string_view attrs,
                 std::string_view title) {
  return "<rect x=\"" + num(x) + "\" y=\"" + num(y) + "\" width=\"" + num(std::max(w, 1.0)) +
         "\" height=\"" + num(h) + "\" " + std::string(attrs) + "><title>" + xmlEscaped(title) +
         "</title></rect>\n";
}

// Tick spacing of 1, 2 or 5 × a power of ten giving at most about ten ticks.
double tickStep(double span) {
  const double raw = std::max(span, 1.0) / 10;
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  for (const double m : {1.0, 2.0, 5.0}) {
    if (m * power >= raw) {
      return m * power;
    }
  }
  return 10 * power;
}

// Bars grouped by node name ("" = unscheduled), times relative to the earliest creation/start.
std::map<std::string, std::vector<Bar>> collectBars(const report::RunSummary& run,
                                                    std::size_t max_tasks, double& span,
                                                    std::size_t& skipped) {
  std::vector<const report::TaskRow*> started;
  for (const auto& t : run.task_rows) {
    if (t.started) {
      started.push_back(&t);
    }
  }
  std::stable_sort(started.begin(), started.end(),
                   [](const auto* a, const auto* b) { return *a->started < *b->started; });
  skipped = started.size() > max_tasks ? started.size() - max_tasks : 0;
  started.resize(std::min(started.size(), max_tasks));
  double origin = started.empty() ? 0 : *started.front()->started;
  for (const auto* t : started) {
    origin = std::min(origin, t->created.value_or(*t->started));
  }
  std::map<std::string, std::vector<Bar>> rows;
  span = 0;
  for (const auto* t : started) {
    Bar bar{*t->started - origin, *t->started - origin + std::max(0.0, t->run_seconds),
            t->created.value_or(*t->started) - origin, t};
    span = std::max(span, bar.end);
    rows[t->node].push_back(bar);
  }
  return rows;
}

// Gaps between the busy intervals of one node, between its first start and its last end.
std::vector<std::pair<double, double>> idleGaps(std::vector<Bar> bars) {
  std::sort(bars.begin(), bars.end(), [](const Bar& a, const Bar& b) { return a.start < b.start; });
  std::vector<std::pair<double, double>> gaps;
  double busy_until = bars.empty() ? 0 : bars.front().end;
  for (const Bar& bar : bars) {
    if (bar.start > busy_until) {
      gaps.emplace_back(busy_until, bar.start);
    }
    busy_until = std::max(busy_until, bar.end);
  }
  return gaps;
}

std::string axis(double span, double scale, double bottom) {
  std::string out;
  const double step = tickStep(span);
  for (double t = 0; t <= span + 1e-9; t += step) {
    const double x = kLeft + t * scale;
    out += "<line x1=\"" + num(x) + "\" y1=\"" + num(kTop - 4) + "\" x2=\"" + num(x) + "\" y2=\"" +
           num(bottom) + "\" stroke=\"#dddddd\"/>\n";
    out += "<text x=\"" + num(x) + "\" y=\"" + num(kTop - 8) +
           "\" text-anchor=\"middle\" font-size=\"10\">" + num(t) + "s</text>\n";
  }
  return out;
}

std::string nodeRow(const std::string& node, const std::vector<Bar>& bars, double y, double scale) {
  std::string out = "<text x=\"" + num(kLeft - 6) + "\" y=\"" + num(y + kRowHeight * 0.65) +
                    "\" text-anchor=\"end\" font-size=\"11\">" +
                    xmlEscaped(node.empty() ? "(unscheduled)" : node) + "</text>\n";
  for (const auto& [from, to] : idleGaps(bars)) {
    out += rect(kLeft + from * scale, y + 2, (to - from) * scale, kRowHeight - 4,
                "class=\"idle\" fill=\"url(#idle)\" stroke=\"#e7969c\"",
                "idle " + num(to - from) + "s on " + node);
  }
  for (const Bar& bar : bars) {
    const auto& t = *bar.task;
    out +=
        rect(kLeft + bar.wait_from * scale, y + kRowHeight - 5, (bar.start - bar.wait_from) * scale,
             3, "class=\"wait\" fill=\"#fdae6b\"", t.id + " waited " + num(t.queue_seconds) + "s");
    out += rect(kLeft + bar.start * scale, y + 4, (bar.end - bar.start) * scale, kRowHeight - 10,
                t.on_critical_path ? "class=\"task critical\" fill=\"#d62728\""
                                   : "class=\"task\" fill=\"#4c78a8\"",
                t.id + ": run " + num(t.run_seconds) + "s, wait " + num(t.queue_seconds) +
                    "s, slack " + num(t.slack_seconds) + "s");
  }
  return out;
}

}  // namespace

std::string renderGanttSvg(const report::RunSummary& run, std::size_t max_tasks) {
  double span = 0;
  std::size_t skipped = 0;
  const auto rows = collectBars(run, max_tasks, span, skipped);
  const double scale = kPlotWidth / std::max(span, 1.0);
  const double bottom =
      kTop + kRowHeight * static_cast<double>(std::max<std::size_t>(rows.size(), 1));
  const double height = bottom + 30;
  std::string out = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
                    num(kLeft + kPlotWidth + 20) + "\" height=\"" + num(height) +
                    "\" font-family=\"Helvetica, Arial, sans-serif\">\n";
  out +=
      "<defs><pattern id=\"idle\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
      "patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#fde0e0\"/>"
      "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#e7969c\" stroke-width=\"2\"/>"
      "</pattern></defs>\n";
  out += "<text x=\"4\" y=\"14\" font-size=\"12\" font-weight=\"bold\">" + xmlEscaped(run.id) +
         " — tasks per node (red: critical path, hatched: idle gap, orange: wait)</text>\n";
  out += axis(span, scale, bottom);
  double y = kTop;
  for (const auto& [node, bars] : rows) {
    out += nodeRow(node, bars, y, scale);
    y += kRowHeight;
  }
  if (rows.empty()) {
    out += "<text x=\"" + num(kLeft) + "\" y=\"" + num(kTop + 16) +
           "\" font-size=\"12\">no task has started yet</text>\n";
  }
  if (skipped > 0) {
    out += "<text x=\"4\" y=\"" + num(height - 8) + "\" font-size=\"11\">" +
           std::to_string(skipped) + " later tasks not drawn</text>\n";
  }
  return out + "</svg>\n";
}

}  // namespace dagadvisor::report
