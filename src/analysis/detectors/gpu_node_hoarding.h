#pragma once

#include "analysis/detector.h"

namespace dagadvisor::analysis {

/// gpu-node-hoarding (seed §1): GPU nodes whose CPU or memory is requested by pods that use no
/// GPU (log collectors, node agents, small services), so GPUs sit unallocated while GPU pods pend
/// for lack of CPU or memory. One finding per node, with the owners that hold it and the pending
/// GPU pods that would fit if those owners stayed off the node.
class GpuNodeHoarding final : public Detector {
 public:
  const DetectorInfo& info() const override;
  void analyze(const AnalysisInput& input, FindingSink& out) const override;
};

}  // namespace dagadvisor::analysis
