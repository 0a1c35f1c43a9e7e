#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>
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

  /// Says the detector could not judge this cycle because its input lacks the data it needs
  /// (no scheduler latency metrics, no usage samples, no workflow runs, fewer samples than the
  /// minimum, …). `reason` completes "no advice, because …", e.g. "no workflow runs were
  /// rebuilt". Never for a cluster the detector examined and found healthy: that is a real
  /// zero. The last call wins.
  void noAdvice(std::string reason) { no_advice_reason_ = std::move(reason); }
  /// Empty unless noAdvice() was called.
  const std::string& noAdviceReason() const { return no_advice_reason_; }

 private:
  std::vector<Finding> findings_;
  std::string no_advice_reason_;
};

/// One detector = one file in analysis/detectors/ (with its evidence and settings structs; the
/// class names its settings as `using Settings = ...`), listed in advice/kind_list.cpp beside
/// its adviser.
/// analyze() must not throw on odd data: missing values mean "no finding", never a wrong one,
/// and when they leave the detector nothing to judge it says so with FindingSink::noAdvice().
class Detector {
 public:
  virtual ~Detector() = default;
  virtual const DetectorInfo& info() const = 0;
  virtual void analyze(const AnalysisInput& input, FindingSink& out) const = 0;
};

using DetectorPtr = std::unique_ptr<Detector>;

}  // namespace dagadvisor::analysis
