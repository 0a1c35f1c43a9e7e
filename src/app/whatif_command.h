#pragma once

#include <ostream>
#include <string>
#include <string_view>

#include "app/plan_json.h"

namespace dagadvisor::app {

/// `dagadvisor whatif --plan FILE [--output json|table]`: schedules the plan with HEFT and prints
/// the schedule, makespan, upward ranks, critical path and idle slots to `out`.
/// Returns 0, or 2 with a message on `err` naming the file and the JSON path of the problem for
/// an unreadable or invalid plan or an unknown output format.
int runWhatIfCommand(const std::string& plan_path, const std::string& output_format,
                     std::ostream& out, std::ostream& err);

}  // namespace dagadvisor::app
