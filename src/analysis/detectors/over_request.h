#pragma once

#include "analysis/detector.h"

namespace dagadvisor::analysis {

/// over-request (seed §1 `kubectl top`): pods on nearly full nodes that use far less than they
/// request, with enough usage samples to say so. One finding per owning workload.
class OverRequest final : public Detector {
 public:
  const DetectorInfo& info() const override;
  void analyze(const AnalysisInput& input, FindingSink& out) const override;
};

}  // namespace dagadvisor::analysis
