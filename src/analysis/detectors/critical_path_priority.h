#pragma once

#include "analysis/detector.h"

namespace dagadvisor::analysis {

/// critical-path-priority (seed §1, §2.3): pending tasks on the critical path of their run's
/// remaining work that wait with no higher PriorityClass than pending tasks with plenty of slack.
/// One finding per run, with its critical pending tasks and the slack-rich work they queue with.
class CriticalPathPriority final : public Detector {
 public:
  const DetectorInfo& info() const override;
  void analyze(const AnalysisInput& input, FindingSink& out) const override;
};

}  // namespace dagadvisor::analysis
