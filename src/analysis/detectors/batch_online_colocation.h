#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/detector.h"
#include "analysis/evidence.h"
#include "config/field.h"

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
  /// The latest run of each of `dags` that was rebuilt, in the same order: its engine and
  /// selectors say where the advice pins the DAG's tasks.
  std::vector<RunScope> dag_scopes;
  std::int64_t service_cpu_millis = 0;
  std::vector<ColocatedService> services;  // by namespace, kind, name

  nlohmann::json toJson() const;
};

/// The settings of batch-online-colocation: `detectors.batch_online_colocation` in the
/// configuration file.
struct BatchOnlineColocationSettings {
  static constexpr std::string_view kSection = "batch_online_colocation";

  bool enabled = true;
  double min_node_cpu_share = 0.8;

  bool operator==(const BatchOnlineColocationSettings&) const = default;
  /// This section's rows, each with its rule and what it means: the one place the
  /// settings are documented (the example file and docs/findings.md are checked against it).
  std::vector<config::Field> fields();
};

/// batch-online-colocation (seed §4.2): busy nodes shared by workflow task pods and
/// long-running services. One finding per node.
class BatchOnlineColocation final : public Detector {
 public:
  using Settings = BatchOnlineColocationSettings;

  const DetectorInfo& info() const override;
  void analyze(const AnalysisInput& input, FindingSink& out) const override;
};

}  // namespace dagadvisor::analysis
