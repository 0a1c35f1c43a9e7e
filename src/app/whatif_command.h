#pragma once

#include <ostream>
#include <string>
#include <string_view>

#include "common/result.h"
#include "graph/plan_file.h"

namespace dagadvisor::app {

/// Decodes a what-if plan (docs/whatif.md) from JSON text. Errors carry the JSON path in
/// `field`, e.g. field "tasks[3].cost", message "expected a number, null or an array of them".
/// Only the shape is checked here; graph::compilePlan checks the content.
Result<graph::Plan> parsePlanJson(std::string_view text);

/// `dagadvisor whatif --plan FILE [--output json|table]`: schedules the plan with HEFT and prints
/// the schedule, makespan, upward ranks, critical path and idle slots to `out`.
/// Returns 0, or 2 with a message on `err` naming the file and the JSON path of the problem for
/// an unreadable or invalid plan or an unknown output format.
int runWhatIfCommand(const std::string& plan_path, const std::string& output_format,
                     std::ostream& out, std::ostream& err);

}  // namespace dagadvisor::app
