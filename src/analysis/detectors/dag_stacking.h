#pragma once

#include "analysis/detector.h"

namespace dagadvisor::analysis {

/// dag-stacking (seed §2.2): many tasks of one run running on one node at the analysis time,
/// that node nearly full, while another node of the same pool has CPU to spare. The tasks then
/// compete for one node's CPU, memory bandwidth and disk. One finding per run, with the
/// stacked nodes and the idle peers.
class DagStacking final : public Detector {
 public:
  const DetectorInfo& info() const override;
  void analyze(const AnalysisInput& input, FindingSink& out) const override;
};

}  // namespace dagadvisor::analysis
