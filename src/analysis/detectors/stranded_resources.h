#pragma once

#include "analysis/detector.h"

namespace dagadvisor::analysis {

/// stranded-resources (seed §1): per node, resources left free because another resource of the
/// node is exhausted (Borg's "stranded resources", Verma et al. EuroSys 2015), one finding per
/// node; and for the cluster, the fit-count fragmentation index of each pending pod shape,
/// FI(s) = 1 − Fit(s)/Pooled(s), one finding when pending pods fit the pooled free capacity but
/// no single node.
class StrandedResources final : public Detector {
 public:
  const DetectorInfo& info() const override;
  void analyze(const AnalysisInput& input, FindingSink& out) const override;
};

}  // namespace dagadvisor::analysis
