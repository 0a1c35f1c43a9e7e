#include "analysis/analysis_input.h"

#include "analysis/detectors/gpu_node_hoarding.h"
#include "analysis/pending_diagnosis.h"

namespace dagadvisor::analysis {

const PendingDiagnosis& AnalysisInput::pendingDiagnosis() const {
  if (!pending_diagnosis_) {
    DiagnosisOptions options;
    options.min_free_gpus = config.detectors.get<analysis::GpuNodeHoardingSettings>().min_free_gpus;
    pending_diagnosis_ =
        std::make_shared<const PendingDiagnosis>(diagnosePending(cluster, options));
  }
  return *pending_diagnosis_;
}

}  // namespace dagadvisor::analysis
