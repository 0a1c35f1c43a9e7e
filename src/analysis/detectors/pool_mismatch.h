#pragma once

#include "analysis/detector.h"

namespace dagadvisor::analysis {

/// pool-mismatch (seed §2.1): pods whose CPU:memory shape fits another pool than their node's.
/// Pools are the values of the pool label, or shapes inferred from allocatable when nodes carry
/// none. One finding per owning workload.
class PoolMismatch final : public Detector {
 public:
  const DetectorInfo& info() const override;
  void analyze(const AnalysisInput& input, FindingSink& out) const override;
};

}  // namespace dagadvisor::analysis
