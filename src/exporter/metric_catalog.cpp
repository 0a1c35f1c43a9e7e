#include "exporter/metric_catalog.h"

#include <string>

namespace dagadvisor::exporter {
namespace {

using enum MetricId;
using enum MetricType;

// Help texts are the user documentation of each metric: say what one sample means and its unit.
const std::vector<MetricSpec>& table() {
  static const std::vector<MetricSpec> kTable = {
      {kBuildInfo,
       "dagadvisor_build_info",
       kGauge,
       "Always 1; the version label tells which dagadvisor build is running.",
       {"cluster", "version"}},
      {kCycleDuration,
       "dagadvisor_cycle_duration_seconds",
       kHistogram,
       "Wall time of successful analysis cycles (fetch, model, graphs, detectors, advice).",
       {"cluster"}},
      {kCyclesTotal,
       "dagadvisor_cycles_total",
       kCounter,
       "Analysis cycles run, by result (success or failure).",
       {"cluster", "result"}},
      {kLastSuccessfulCycle,
       "dagadvisor_last_successful_cycle_timestamp_seconds",
       kGauge,
       "Unix time at which the last successful analysis cycle finished.",
       {"cluster"}},
      {kAnalysisStale,
       "dagadvisor_analysis_stale",
       kGauge,
       "1 when the served analysis is stale (none yet, last cycle failed, or too old), else 0.",
       {"cluster"}},
      {kDataAge,
       "dagadvisor_data_age_seconds",
       kGauge,
       "Age in seconds of the data the served analysis describes (now minus its data time, as the "
       "API's data_age_seconds), set after each cycle.",
       {"cluster"}},
      {kSourceUp,
       "dagadvisor_source_up",
       kGauge,
       "1 when the last cycle read its data source successfully, else 0.",
       {"cluster", "source"}},
      {kSourceQueries,
       "dagadvisor_source_queries_total",
       kCounter,
       "Queries sent to the data source by successful cycles (a direct scrape: targets read).",
       {"cluster", "source"}},
      {kSourceResponseBytes,
       "dagadvisor_source_response_bytes_total",
       kCounter,
       "Response bytes decoded from the data source by successful cycles.",
       {"cluster", "source"}},
      {kSourceQueryResponseBytes,
       "dagadvisor_source_query_response_bytes",
       kGauge,
       "Response bytes of each query (the catalog's name, or what an incremental read adds: "
       "pod_seen, pod_changed, pod_gone, pod_created_or_gone) in the last successful read of "
       "its kind (read=\"full\": the whole catalog; read=\"window\": an incremental read of "
       "what changed), summed over the query's requests; absent when that read did not ask it.",
       {"cluster", "query", "read"}},
      {kSourceQuerySeries,
       "dagadvisor_source_query_series",
       kGauge,
       "Series (instant-vector samples) each query answered in the last successful read of "
       "its kind, summed over its requests.",
       {"cluster", "query", "read"}},
      {kSourceQueryEvalSeconds,
       "dagadvisor_source_query_eval_seconds",
       kGauge,
       "Seconds Prometheus reports evaluating each query of the last successful read of its "
       "kind, summed over its requests (evalTotalTime of stats=all); absent when the backend "
       "reports no stats.",
       {"cluster", "query", "read"}},
      {kSourceQueryExecSeconds,
       "dagadvisor_source_query_exec_seconds",
       kGauge,
       "Seconds Prometheus reports executing each query of the last successful read of its "
       "kind, summed over its requests, queueing and preparation included (execTotalTime of "
       "stats=all); absent without stats.",
       {"cluster", "query", "read"}},
      {kSourceQuerySamples,
       "dagadvisor_source_query_samples",
       kGauge,
       "Samples Prometheus reports each query of the last successful read of its kind read, "
       "summed over its requests (totalQueryableSamples of stats=all); absent without stats.",
       {"cluster", "query", "read"}},
      {kDetectorDuration,
       "dagadvisor_detector_duration_seconds",
       kGauge,
       "Wall time of each detector in the last successful cycle.",
       {"cluster", "detector"}},
      {kDetectorSuccess,
       "dagadvisor_detector_success",
       kGauge,
       "1 when the detector succeeded in the last successful cycle, else 0.",
       {"cluster", "detector"}},
      {kConfigLastReloadSuccessful,
       "dagadvisor_config_last_reload_successful",
       kGauge,
       "1 when the last configuration (re)load succeeded, else 0.",
       {"cluster"}},
      {kRecommendationsActive,
       "dagadvisor_recommendations_active",
       kGauge,
       "Recommendations in the current analysis, by kind and severity.",
       {"cluster", "kind", "severity"}},
      {kFindings,
       "dagadvisor_findings",
       kGauge,
       "Findings in the current analysis, by kind and severity; 0 for a detector that judged the "
       "data and found none, absent for one that could not judge it.",
       {"cluster", "kind", "severity"}},
      {kClusterNodes,
       "dagadvisor_cluster_nodes",
       kGauge,
       "Nodes in the analysed cluster.",
       {"cluster"}},
      {kClusterGpuNodes,
       "dagadvisor_cluster_gpu_nodes",
       kGauge,
       "Nodes with allocatable GPUs in the analysed cluster.",
       {"cluster"}},
      {kClusterPods,
       "dagadvisor_cluster_pods",
       kGauge,
       "Pods known at the analysis time, including finished ones within the lookback.",
       {"cluster"}},
      {kPendingPods,
       "dagadvisor_pending_pods",
       kGauge,
       "Pods pending and not yet bound to a node at the analysis time.",
       {"cluster"}},
      {kGpusAllocatable,
       "dagadvisor_gpus_allocatable",
       kGauge,
       "GPUs allocatable over all nodes of the cluster.",
       {"cluster"}},
      {kGpusRequested,
       "dagadvisor_gpus_requested",
       kGauge,
       "GPUs requested by pods holding resources at the analysis time.",
       {"cluster"}},
      {kGpuNodeHoarded,
       "dagadvisor_gpu_node_hoarded",
       kGauge,
       "1 for each GPU node whose CPU or memory is held by movable non-GPU pods "
       "(gpu-node-hoarding; not the nodes held only by DaemonSets).",
       {"cluster", "node"}},
      {kGpuNodeFreeGpus,
       "dagadvisor_gpu_node_free_gpus",
       kGauge,
       "Unallocated GPUs on a hoarded GPU node.",
       {"cluster", "node"}},
      {kGpuNodeNonGpuCpuShare,
       "dagadvisor_gpu_node_non_gpu_cpu_share",
       kGauge,
       "Share (0-1) of a hoarded GPU node's allocatable CPU requested by non-GPU pods.",
       {"cluster", "node"}},
      {kDagRunMakespan,
       "dagadvisor_dag_run_makespan_seconds",
       kGauge,
       "Makespan of a finished workflow run (first created to last finished), top runs by "
       "elapsed time. Absent for an unfinished run, which has no makespan yet.",
       {"cluster", "namespace", "dag", "run"}},
      {kDagRunElapsed,
       "dagadvisor_dag_run_elapsed_seconds",
       kGauge,
       "Time since a workflow run's first pod was created, to its last finish when finished "
       "(then equal to the makespan), top runs by elapsed time.",
       {"cluster", "namespace", "dag", "run"}},
      {kDagRunCriticalPath,
       "dagadvisor_dag_run_critical_path_seconds",
       kGauge,
       "Length of a workflow run's critical path (run times along it), top runs by makespan.",
       {"cluster", "namespace", "dag", "run"}},
      {kDagRunEfficiency,
       "dagadvisor_dag_run_efficiency_ratio",
       kGauge,
       "Critical path length divided by makespan (1 = no scheduling delay), top runs by makespan.",
       {"cluster", "namespace", "dag", "run"}},
      {kDagRunWaitShare,
       "dagadvisor_dag_run_wait_share_ratio",
       kGauge,
       "Share (0-1) of a run's makespan its critical chain spent waiting for a node, top runs by "
       "makespan.",
       {"cluster", "namespace", "dag", "run"}},
      {kDagRunWhatIfMakespan,
       "dagadvisor_dag_run_whatif_makespan_seconds",
       kGauge,
       "Makespan of a HEFT re-schedule of the run on its observed nodes, top runs by makespan "
       "(absent when it cannot be computed).",
       {"cluster", "namespace", "dag", "run"}},
      {kSchedulingLatency,
       "dagadvisor_scheduling_latency_seconds",
       kGauge,
       "Pod scheduling latency percentile (50, 95, 99) over the analysis window, by scheduler "
       "profile, from the kube-scheduler histogram (a gauge, so the label is not 'quantile').",
       {"cluster", "profile", "percentile"}},
      {kSchedulerPendingPods,
       "dagadvisor_scheduler_pending_pods",
       kGauge,
       "Pods waiting in the kube-scheduler's queues at the analysis time, by queue.",
       {"cluster", "queue"}},
      {kNodeStrandedShare,
       "dagadvisor_node_stranded_share_ratio",
       kGauge,
       "Share (0-1) of a node's resource left free but unusable because another resource of the "
       "node is exhausted; only nodes with a stranded resource.",
       {"cluster", "node", "resource"}},
  };
  return kTable;
}

}  // namespace

std::span<const MetricSpec> metricCatalog() {
  return table();
}

const MetricSpec& metricSpec(MetricId id) {
  return table().at(static_cast<std::size_t>(id));
}

std::vector<std::pair<std::string, std::string>> labelPairs(
    const MetricSpec& spec, std::initializer_list<std::string_view> values) {
  std::vector<std::pair<std::string, std::string>> pairs;
  auto value = values.begin();
  for (const auto name : spec.labels) {
    pairs.emplace_back(name, value == values.end() ? std::string_view{} : *value++);
  }
  return pairs;
}

std::string renderMetricsMarkdown() {
  std::string out =
      "# Metrics\n\n"
      "<!-- Generated from src/exporter/metric_catalog.cpp; do not edit. Regenerate with\n"
      "     DAGADVISOR_UPDATE_DOCS=1 build/tests/unit/unit_exporter \"[docs]\" -->\n\n"
      "Every metric dagadvisor serves on `/metrics`, prefix `dagadvisor_`. Every series carries "
      "the `cluster` label first.\n\n"
      "Cardinality is bounded: per-run series exist for the `server.metrics_top_runs` longest "
      "runs only (default 50), per-node series for nodes with a finding or a stranded resource "
      "only, and kind/severity pairs are a fixed set. Analysis series are rendered from the "
      "current analysis at scrape time, so the series of a problem that went away vanish.\n\n"
      "`dagadvisor_detector_duration_seconds` is a gauge of the last cycle's duration per "
      "detector rather than a histogram: cycles run once a minute, so a histogram would add "
      "buckets for few observations; use `max_over_time()` for the worst case over a range.\n\n"
      "| name | type | labels | help |\n"
      "|---|---|---|---|\n";
  for (const MetricSpec& spec : metricCatalog()) {
    std::string labels;
    for (const auto label : spec.labels) {
      labels += (labels.empty() ? "" : ", ") + std::string(label);
    }
    out += "| `" + std::string(spec.name) + "` | " + std::string(metricTypeName(spec.type)) +
           " | " + labels + " | " + std::string(spec.help) + " |\n";
  }
  return out;
}

std::string_view metricTypeName(MetricType type) {
  switch (type) {
    case kCounter:
      return "counter";
    case kGauge:
      return "gauge";
    case kHistogram:
      return "histogram";
  }
  return "untyped";
}

}  // namespace dagadvisor::exporter
