#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "advice/recommendation.h"
#include "analysis/detector_runner.h"
#include "analysis/finding.h"
#include "common/clock.h"

namespace dagadvisor::advice {

/// One workflow run as the API, exporter and report show it.
struct RunSummary {
  std::string id;  // "<namespace>/<dag-id>/<run>" — unique within a cluster
  std::string namespace_;
  std::string dag;
  std::string run;
  std::string engine;  // "labels" (seed convention), "argo", "airflow", "tekton"
  std::size_t tasks = 0;
  std::size_t edges = 0;
  bool finished = false;
  double makespan_seconds = 0;             // first created → last finished (or analysis time)
  double critical_path_seconds = 0;        // sum of run times along the critical path
  std::vector<std::string> critical_path;  // task ids, entry to exit
  double efficiency = 0;  // critical_path_seconds / makespan_seconds, 0 when makespan is 0
  std::vector<std::string> problems;  // data-quality messages (cycles, missing parents, …)
};

struct ClusterSummary {
  std::size_t nodes = 0;
  std::size_t gpu_nodes = 0;
  std::size_t pods = 0;  // pods known at the analysis time, including finished ones in lookback
  std::size_t running_pods = 0;
  std::size_t pending_pods = 0;  // pending and not yet bound to a node
  std::int64_t gpus_allocatable = 0;
  std::int64_t gpus_requested = 0;  // by pods holding resources now
};

/// How one detector fared in a cycle (defined with the runner that measures it).
using DetectorRun = analysis::DetectorRun;

/// Everything one analysis cycle produced. Immutable once published; servers share it by
/// shared_ptr<const AnalysisReport> and never copy it.
struct AnalysisReport {
  std::string cluster = "default";
  std::string source;                 // MetricsSource::describe()
  UnixSeconds data_time = 0;          // the instant the data describes (`--at`, or now)
  UnixSeconds generated_at = 0;       // when this analysis finished
  double analysis_seconds = 0;        // wall time of the cycle
  std::size_t queries = 0;            // PromQL queries issued
  std::size_t bytes_received = 0;     // response bytes decoded
  std::vector<std::string> warnings;  // data-quality warnings (backend warnings, gaps)
  ClusterSummary summary;
  std::vector<RunSummary> runs;
  std::vector<analysis::Finding> findings;
  std::vector<Recommendation> recommendations;  // ranked, most impact first
  std::vector<DetectorRun> detectors;
};

}  // namespace dagadvisor::advice
