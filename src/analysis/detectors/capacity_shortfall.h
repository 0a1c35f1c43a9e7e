#pragma once

#include "analysis/detector.h"

namespace dagadvisor::analysis {

/// capacity-shortfall (seed §4, bursts): the pending pods ask for more than the free capacity of
/// all nodes together, so no placement could hold them (not fragmentation). A first-fit-
/// decreasing packing onto the free capacity finds the pods left over, and a second one onto
/// empty nodes of the cluster's real node shapes estimates how many nodes of which shape are
/// missing. One finding per cluster.
class CapacityShortfall final : public Detector {
 public:
  const DetectorInfo& info() const override;
  void analyze(const AnalysisInput& input, FindingSink& out) const override;
};

}  // namespace dagadvisor::analysis
