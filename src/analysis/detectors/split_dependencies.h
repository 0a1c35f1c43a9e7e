#pragma once

#include "analysis/detector.h"

namespace dagadvisor::analysis {

/// split-dependencies (seed §1, §2.2): parent → child edges of a run whose pods ran on different
/// nodes, and above all in different zones, so the child must fetch the parent's output over the
/// network. One finding per run, with the split counts and the transfer time the configured cost
/// model estimates (in all and on the critical path).
class SplitDependencies final : public Detector {
 public:
  const DetectorInfo& info() const override;
  void analyze(const AnalysisInput& input, FindingSink& out) const override;
};

}  // namespace dagadvisor::analysis
