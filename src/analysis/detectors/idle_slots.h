#pragma once

#include "analysis/detector.h"

namespace dagadvisor::analysis {

/// idle-slots (seed §2.3, HEFT insertion): ready tasks (all parents finished) pending while a
/// schedulable node has room for them now. One finding per run, with the time lost.
class IdleSlots final : public Detector {
 public:
  const DetectorInfo& info() const override;
  void analyze(const AnalysisInput& input, FindingSink& out) const override;
};

}  // namespace dagadvisor::analysis
