#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/detector.h"

namespace dagadvisor::analysis {

/// A long-running service with pods on the shared node.
struct ColocatedService {
  std::string namespace_;
  std::string kind;  // the owner kind: ReplicaSet, Deployment, StatefulSet
  std::string name;
  std::size_t pods = 0;  // its pods on the node
};

/// Evidence of one busy node shared by workflow task pods and long-running services.
struct BatchOnlineColocationEvidence {
  static constexpr std::string_view kKind = "batch-online-colocation";
  std::string node;
  double cpu_requested_share = 0;  // CPU requested over allocatable
  std::size_t batch_pods = 0;
  std::int64_t batch_cpu_millis = 0;
  std::vector<std::string> dags;  // "namespace/dag" of the task pods, in order
  std::int64_t service_cpu_millis = 0;
  std::vector<ColocatedService> services;  // by namespace, kind, name

  nlohmann::json toJson() const;
};

/// batch-online-colocation (seed §4.2): busy nodes shared by workflow task pods and
/// long-running services. One finding per node.
class BatchOnlineColocation final : public Detector {
 public:
  const DetectorInfo& info() const override;
  void analyze(const AnalysisInput& input, FindingSink& out) const override;
};

}  // namespace dagadvisor::analysis
