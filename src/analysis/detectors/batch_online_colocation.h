#pragma once

#include "analysis/detector.h"

namespace dagadvisor::analysis {

/// batch-online-colocation (seed §4.2): busy nodes shared by workflow task pods and
/// long-running services. One finding per node.
class BatchOnlineColocation final : public Detector {
 public:
  const DetectorInfo& info() const override;
  void analyze(const AnalysisInput& input, FindingSink& out) const override;
};

}  // namespace dagadvisor::analysis
