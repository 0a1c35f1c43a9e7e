#include "analysis/detector_runner.h"

#include <chrono>
#include <exception>

#include "common/log.h"

namespace dagadvisor::analysis {

DetectionResult runDetectors(const std::vector<DetectorPtr>& detectors,
                             const AnalysisInput& input) {
  static const log::Logger logger("analysis");
  DetectionResult result;
  for (const DetectorPtr& detector : detectors) {
    DetectorRun run;
    run.name = detector->info().kind;
    FindingSink sink;
    const auto start = std::chrono::steady_clock::now();
    try {
      detector->analyze(input, sink);
    } catch (const std::exception& e) {
      run.ok = false;
      run.error = e.what();
      logger.error("detector failed", {{"detector", run.name}, {"error", run.error}});
    }
    run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (run.ok) {
      run.findings = sink.findings().size();
      run.no_advice_reason = sink.noAdviceReason();
      for (Finding& f : sink.findings()) {
        result.findings.push_back(std::move(f));
      }
    }
    result.runs.push_back(std::move(run));
  }
  return result;
}

}  // namespace dagadvisor::analysis
