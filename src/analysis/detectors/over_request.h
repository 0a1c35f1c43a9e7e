#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "analysis/detector.h"
#include "model/cluster.h"
#include "model/resources.h"

namespace dagadvisor::analysis {

/// One over-requested pod of the workload, with what it requests and what it uses.
struct OverRequestedPod {
  std::string pod;
  std::string node;
  model::ResourceVector requests;  // CPU and memory are rendered
  double cpu_used_millis = 0;      // the usage percentile, in millicores
  double memory_used_bytes = 0;    // the working-set peak
  double samples = 0;              // usage samples behind those figures
};

/// Evidence of one workload whose pods on nearly full nodes request far more than they use.
/// requested and recommended are the largest of one pod; reclaimable is over all its pods.
struct OverRequestEvidence {
  static constexpr std::string_view kKind = "over-request";
  static constexpr std::size_t kMaxListedPods = 20;
  std::string namespace_;
  std::string owner_kind;  // "Pod" when unowned
  std::string owner_name;
  model::ResourceVector requested;    // CPU and memory
  model::ResourceVector recommended;  // right-sized requests: use plus headroom
  model::ResourceVector reclaimable;
  double min_samples = 0;  // fewest usage samples of one pod
  std::size_t pod_count = 0;
  double headroom = 0;                 // the configured headroom share over use
  std::vector<OverRequestedPod> pods;  // the first kMaxListedPods
  /// The app containers of its largest-requesting pod, by name, with their requests: the patch
  /// names them and splits the recommended requests between them. Empty when not known.
  std::vector<model::ContainerRequests> containers{};

  nlohmann::json toJson() const;
};

/// over-request (seed §1 `kubectl top`): pods on nearly full nodes that use far less than they
/// request, with enough usage samples to say so. One finding per owning workload.
class OverRequest final : public Detector {
 public:
  const DetectorInfo& info() const override;
  void analyze(const AnalysisInput& input, FindingSink& out) const override;
};

}  // namespace dagadvisor::analysis
