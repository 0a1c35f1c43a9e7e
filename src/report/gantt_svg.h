#pragma once

#include <cstddef>
#include <string>

#include "report/analysis_report.h"

namespace dagadvisor::report {

/// Gantt charts draw at most this many tasks (the earliest-started ones); a note says how many
/// were left out, so a huge run still renders in milliseconds.
inline constexpr std::size_t kMaxGanttTasks = 2000;

/// The run's tasks per node as a hand-written SVG: one row per node, one bar per task (started →
/// started + run time; critical-path tasks red), a thin bar for each task's wait before it
/// started, and each node's idle gaps between its first and last task marked as hatched
/// `class="idle"` rectangles with their length in a tooltip. Unstarted tasks are not drawn.
std::string renderGanttSvg(const report::RunSummary& run, std::size_t max_tasks = kMaxGanttTasks);

}  // namespace dagadvisor::report
