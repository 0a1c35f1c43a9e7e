#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "common/clock.h"
#include "report/analysis_report.h"

namespace dagadvisor::report {

/// The report for `dagadvisor analyze --output yaml`: the same structure and field names as
/// reportJson(), emitted by yaml-cpp. Multi-line strings (YAML patches) become literal blocks.
std::string renderYaml(const report::AnalysisReport& report, UnixSeconds now, bool stale);

/// Any JSON value as a YAML document (objects keep their key order).
std::string jsonToYaml(const nlohmann::json& value);

}  // namespace dagadvisor::report
