#pragma once

#include <memory>
#include <vector>

#include "config/config.h"
#include "graph/run_graph.h"
#include "model/cluster.h"

namespace dagadvisor::analysis {

struct PendingDiagnosis;

/// Everything a detector may read: one cycle's cluster, its runs with their graphs, and the
/// settings. Read-only; detectors keep nothing between cycles.
struct AnalysisInput {
  const model::ClusterSnapshot& cluster;
  const std::vector<graph::RunGraph>& runs;
  const config::Config& config;

  /// The one diagnosis of the cluster's pending pods (pending_diagnosis.h), made on first use
  /// and shared by the detectors of this input, so that each reports only its own pods. Not
  /// thread-safe: detectors run one after another (detector_runner.cpp).
  const PendingDiagnosis& pendingDiagnosis() const;

  mutable std::shared_ptr<const PendingDiagnosis> pending_diagnosis_{};
};

}  // namespace dagadvisor::analysis
