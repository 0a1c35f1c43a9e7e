#pragma once

#include "analysis/detector.h"

namespace dagadvisor::analysis {

/// shard-candidate (seed §4.1): one task dominating the critical path of every recent run of a
/// DAG while nodes could run copies of it in parallel. One finding per DAG.
class ShardCandidate final : public Detector {
 public:
  const DetectorInfo& info() const override;
  void analyze(const AnalysisInput& input, FindingSink& out) const override;
};

}  // namespace dagadvisor::analysis
