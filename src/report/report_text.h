#pragma once

#include <cstddef>
#include <string>

#include "report/analysis_report.h"

namespace dagadvisor::report {

struct TextOptions {
  std::size_t max_runs = 20;  // the runs table shows the longest runs first; 0 = all
};

/// The human report of `dagadvisor analyze --output table`: a header (cluster, source, data
/// time, nodes/pods/pending/GPUs, warnings), the recommendations in rank order (id, severity,
/// title, impact, then action, evidence and the YAML patch indented) and a runs table (run,
/// tasks, makespan, critical path length, efficiency, critical path tasks).
std::string renderText(const report::AnalysisReport& report, const TextOptions& options = {});

/// A duration for people: "250ms", "42s", "1h30m5s" (whole seconds from 1 s up).
std::string humanSeconds(double seconds);

}  // namespace dagadvisor::report
