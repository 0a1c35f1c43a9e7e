#pragma once

#include <cstddef>
#include <string>

#include "report/analysis_report.h"

namespace dagadvisor::report {

struct TextOptions {
  std::size_t max_runs = 20;  // the runs table shows the longest runs first; 0 = all
  /// Every recommendation in full (title, impact, action, evidence, patch) instead of one table
  /// row each.
  bool details = false;
  /// Only this recommendation, in full, after the header ("" = all). No runs table.
  std::string recommendation_id;
};

/// The human report of `dagadvisor analyze --output table`. By default one screen: a header
/// (cluster, source, data time, nodes/pods/pending/GPUs, warnings), the ranked recommendations
/// as a table (rank, severity, id, target, the gain and how it was obtained), the detectors that
/// could not judge, then the runs table (run, tasks, makespan, critical path, efficiency,
/// critical path tasks). With `details` each recommendation comes in full: title, impact,
/// action, evidence and the YAML patch indented.
std::string renderText(const report::AnalysisReport& report, const TextOptions& options = {});

/// A duration for people: "250ms", "42s", "1h30m5s" (whole seconds from 1 s up).
std::string humanSeconds(double seconds);

}  // namespace dagadvisor::report
