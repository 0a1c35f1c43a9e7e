#pragma once

#include <string_view>

#include "common/result.h"
#include "graph/plan_file.h"

namespace dagadvisor::app {

/// Decodes a what-if plan (docs/whatif.md) from JSON text. Errors carry the JSON path in
/// `field`, e.g. field "tasks[3].cost", message "expected a number, null or an array of them".
/// Only the shape is checked here; graph::compilePlan checks the content. Never throws.
Result<graph::Plan> parsePlanJson(std::string_view text);

}  // namespace dagadvisor::app
