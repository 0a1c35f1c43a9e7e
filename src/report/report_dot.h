#pragma once

#include <cstddef>
#include <string>

#include "report/analysis_report.h"

namespace dagadvisor::report {

/// Runs with more tasks than this are drawn summarised: the critical path plus the tasks that
/// waited longest, up to this many, with one note node counting the rest. Keeps Graphviz' layout
/// time bounded whatever the run's size.
inline constexpr std::size_t kMaxDrawnTasks = 200;

/// The run as a Graphviz DOT digraph: one box per task (label: id, node, run and queue time),
/// filled from white to orange by its queue time relative to the run's longest wait; the critical
/// path's tasks and the edges between them drawn red and bold.
std::string renderDot(const report::RunSummary& run, std::size_t max_tasks = kMaxDrawnTasks);

}  // namespace dagadvisor::report
