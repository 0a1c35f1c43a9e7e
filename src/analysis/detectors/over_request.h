#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "analysis/detector.h"
#include "config/field.h"
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
  /// What its right-sizing frees where pending pods need it (OverRequestEvidence::needed).
  model::ResourceVector needed;
};

/// Evidence of one workload whose pods on nearly full nodes request far more than they use.
/// requested and recommended are the largest of one pod; reclaimable is over all its pods.
///
/// `needed` is the part of `reclaimable` that pending pods need now. A resource freed on a node
/// counts only where it is the blocking one: some pending pod that does not fit the node's free
/// capacity now lacks that resource there, and would fit once every over-requested pod of the
/// node is right-sized (CPU freed where memory still blocks the pending pods frees nothing
/// they can use). Node selectors, affinities and taints are not checked.
struct OverRequestEvidence {
  static constexpr std::string_view kKind = "over-request";
  static constexpr std::size_t kMaxListedPods = 20;
  std::string namespace_;
  std::string owner_kind;  // "Pod" when unowned
  std::string owner_name;
  model::ResourceVector requested;    // CPU and memory
  model::ResourceVector recommended;  // right-sized requests: use plus headroom
  model::ResourceVector reclaimable;
  model::ResourceVector needed;  // of reclaimable, what pending pods need now (above)
  std::size_t pending_pods = 0;  // pending pods in the cluster when judged
  double min_samples = 0;        // fewest usage samples of one pod
  std::size_t pod_count = 0;
  double headroom = 0;                 // the configured headroom share over use
  std::vector<OverRequestedPod> pods;  // the first kMaxListedPods
  /// The app containers of its largest-requesting pod, by name, with their requests: the patch
  /// names them and splits the recommended requests between them. Empty when not known.
  std::vector<model::ContainerRequests> containers{};

  nlohmann::json toJson() const;
};

/// The settings of over-request: `detectors.over_request` in the configuration file.
struct OverRequestSettings {
  static constexpr std::string_view kSection = "over_request";

  bool enabled = true;
  double min_node_requested_share = 0.8;
  double max_usage_share = 0.5;
  int min_samples = 30;
  int min_cpu_millis = 100;
  double headroom = 0.2;

  bool operator==(const OverRequestSettings&) const = default;
  /// This section's rows, each with its rule and what it means: the one place the
  /// settings are documented (the example file and docs/findings.md are checked against it).
  std::vector<config::Field> fields();
};

/// over-request (seed §1 `kubectl top`): pods on nearly full nodes that use far less than they
/// request, with enough usage samples to say so. One finding per owning workload.
class OverRequest final : public Detector {
 public:
  using Settings = OverRequestSettings;

  const DetectorInfo& info() const override;
  void analyze(const AnalysisInput& input, FindingSink& out) const override;
};

}  // namespace dagadvisor::analysis
