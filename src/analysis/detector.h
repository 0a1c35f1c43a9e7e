#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "analysis/analysis_input.h"
#include "analysis/finding.h"

namespace dagadvisor::analysis {

/// Who a detector is: `kind` is the stable code used in findings, recommendations, metrics labels,
/// config keys (with '-' as '_') and docs/findings.md.
struct DetectorInfo {
  std::string_view kind;     // "gpu-node-hoarding"
  std::string_view summary;  // one line, shown in docs and the report
};

/// Where detectors put what they find.
class FindingSink {
 public:
  void emit(Finding finding) { findings_.push_back(std::move(finding)); }
  std::vector<Finding>& findings() { return findings_; }

 private:
  std::vector<Finding> findings_;
};

/// One detector = one file in analysis/detectors/, registered in detector_registry.cpp.
/// analyze() must not throw on odd data: missing values mean "no finding", never a wrong one.
class Detector {
 public:
  virtual ~Detector() = default;
  virtual const DetectorInfo& info() const = 0;
  virtual void analyze(const AnalysisInput& input, FindingSink& out) const = 0;
};

using DetectorPtr = std::unique_ptr<Detector>;

}  // namespace dagadvisor::analysis
