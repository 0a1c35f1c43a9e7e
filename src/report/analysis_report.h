#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "advice/recommendation.h"
#include "analysis/detector_runner.h"
#include "analysis/finding.h"
#include "common/clock.h"
#include "graph/whatif_reading.h"
#include "model/resources.h"
#include "model/scheduler_stats.h"
#include "prediction/recommendation_predictions.h"

// The views of one analysis that every output renders (API, page, metrics, text): assembled by
// the analysis cycle from the stages before, immutable once published.
namespace dagadvisor::report {

/// One task of a run as the DAG and Gantt views show it (its latest attempt's pod).
struct TaskRow {
  std::string id;    // the engine's task id
  std::string pod;   // pod name (namespace is the run's)
  std::string node;  // node name, "" while unscheduled
  std::optional<UnixSeconds> created;
  std::optional<UnixSeconds> scheduled;
  std::optional<UnixSeconds> started;
  std::optional<UnixSeconds> finished;
  double queue_seconds = 0;  // created → started (→ analysis time while waiting)
  double run_seconds = 0;    // started → finished (→ analysis time while running)
  double slack_seconds = 0;  // delay the task could take without lengthening the critical path
  bool on_critical_path = false;
  std::uint32_t attempts = 1;
};

/// One dependency parent → child, by task id.
struct EdgeRow {
  std::string parent;
  std::string child;
  bool inferred = false;  // guessed from timing, not declared by the engine
};

/// One workflow run as the API, exporter and report show it.
struct RunSummary {
  std::string id;  // "<namespace>/<dag-id>/<run>" — unique within a cluster
  std::string namespace_;
  std::string dag;
  std::string run;
  std::string engine;  // "labels" (seed convention), "argo", "airflow", "tekton"
  std::size_t tasks = 0;
  std::size_t edges = 0;
  /// Every task succeeded or failed. An unfinished run has no makespan yet: makespan_seconds is
  /// then the time elapsed since its first pod was created, and every view says "elapsed".
  bool finished = false;
  double makespan_seconds = 0;             // first created → last finished (or analysis time)
  double critical_path_seconds = 0;        // sum of run times along the critical path
  std::vector<std::string> critical_path;  // task ids, entry to exit
  double efficiency = 0;  // critical_path_seconds / makespan_seconds, 0 when makespan is 0
  std::vector<std::string> problems;  // data-quality messages (cycles, missing parents, …)
  /// Share (0…1) of the makespan the critical chain spent waiting for a node.
  double wait_share = 0;
  /// Makespan of a HEFT re-schedule on the observed nodes; unset when it could not be computed.
  std::optional<double> whatif_makespan_seconds;
  /// What the what-if's run times are: "observed" (finished run), "estimated" (unfinished tasks
  /// got estimates), "lower_bound" (some had none); "" without a what-if.
  std::string whatif_basis;
  /// What the what-if says against makespan_seconds: a gain only where it is one
  /// (graph/whatif_reading.h); unset without a what-if.
  std::optional<graph::WhatIfReading> whatif_reading;
  std::vector<TaskRow> task_rows;  // in the run's task order
  std::vector<EdgeRow> edge_rows;
};

/// One node's allocation as the nodes view shows it.
struct NodeRow {
  std::string name;
  std::string pool;  // value of the pool label (cluster_labels.pool), "" when unlabelled
  model::ResourceVector allocatable;
  model::ResourceVector requested;  // by pods holding resources now
  std::size_t pods = 0;             // pods holding resources on the node
  bool unschedulable = false;
  /// Largest free share (0…1) of a resource left unusable because another resource of the node
  /// is exhausted (free share ≤ stranded_resources.max_exhausted_free_share); 0 when none is.
  double stranded_share = 0;
  std::string stranded_resource;  // "cpu", "memory", "gpu" or "" (the stranded one)
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

/// What one query of the cycle cost, summed over its requests (an incremental read asks some in
/// chunks); the backend's figures when it reports them (Prometheus answering stats=all). A
/// direct scrape sends no query and has none.
struct QueryCostRow {
  std::string query;  // the catalog name, e.g. "pod_info"
  std::size_t response_bytes = 0;
  std::size_t series = 0;
  std::optional<double> eval_seconds;       // Prometheus' evalTotalTime
  std::optional<double> exec_seconds;       // Prometheus' execTotalTime (queueing included)
  std::optional<double> queryable_samples;  // Prometheus' totalQueryableSamples
  std::string read = "full";                // "full", or "window": a read of what changed
};

/// Everything one analysis cycle produced. Immutable once published; servers share it by
/// shared_ptr<const AnalysisReport> and never copy it.
struct AnalysisReport {
  std::string cluster = "default";
  std::string source;                     // MetricsSource::describe()
  UnixSeconds data_time = 0;              // the instant the data describes (`--at`, or now)
  UnixSeconds generated_at = 0;           // when this analysis finished
  double analysis_seconds = 0;            // wall time of the cycle
  std::size_t queries = 0;                // PromQL queries issued
  std::size_t bytes_received = 0;         // response bytes decoded
  std::vector<std::string> warnings;      // data-quality warnings (backend warnings, gaps)
  std::vector<QueryCostRow> query_costs;  // per query, in catalog order (not rendered: metrics)
  ClusterSummary summary;
  std::vector<RunSummary> runs;
  std::vector<NodeRow> nodes;       // sorted by name
  model::SchedulerStats scheduler;  // the scheduler's own statistics over the window
  std::vector<analysis::Finding> findings;
  std::vector<advice::Recommendation> recommendations;  // ranked, most impact first
  prediction::RecommendationPredictions predictions;    // what replaying them predicts
  std::vector<DetectorRun> detectors;
};

}  // namespace dagadvisor::report
