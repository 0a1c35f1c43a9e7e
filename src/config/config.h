#pragma once

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "config/detector_settings.h"

namespace dagadvisor::config {

/// Metric names we consume (SPEC §2). Defaults are the upstream names; clusters that rename or
/// relabel override them here.
struct MetricNames {
  std::string node_labels = "kube_node_labels";
  std::string node_allocatable = "kube_node_status_allocatable";
  std::string node_taint = "kube_node_spec_taint";
  std::string pod_info = "kube_pod_info";
  std::string pod_labels = "kube_pod_labels";
  std::string pod_annotations = "kube_pod_annotations";
  std::string pod_owner = "kube_pod_owner";
  std::string pod_requests = "kube_pod_container_resource_requests";
  std::string pod_tolerations = "kube_pod_tolerations";
  std::string pod_nodeselectors = "kube_pod_nodeselectors";
  std::string pod_phase = "kube_pod_status_phase";
  std::string pod_created = "kube_pod_created";
  std::string pod_scheduled_time = "kube_pod_status_scheduled_time";
  std::string pod_start_time = "kube_pod_start_time";
  std::string pod_completion_time = "kube_pod_completion_time";
  std::vector<std::string> scheduling_latency = {"scheduler_pod_scheduling_sli_duration_seconds",
                                                 "scheduler_pod_scheduling_duration_seconds",
                                                 "scheduler_e2e_scheduling_duration_seconds"};
  std::string pod_init_requests = "kube_pod_init_container_resource_requests";
  std::string scheduler_pending_pods = "scheduler_pending_pods";
  std::string scheduler_unschedulable_pods = "scheduler_unschedulable_pods";
  std::string scheduler_schedule_attempts = "scheduler_schedule_attempts_total";
  std::string scheduler_preemption_attempts = "scheduler_preemption_attempts_total";
  std::string scheduler_extension_point_duration =
      "scheduler_framework_extension_point_duration_seconds";
  std::string container_cpu_usage = "container_cpu_usage_seconds_total";
  std::string container_memory_working_set = "container_memory_working_set_bytes";
  std::string container_network_receive = "container_network_receive_bytes_total";
  std::string gpu_utilization = "DCGM_FI_DEV_GPU_UTIL";
  // What the mixin's usage recording rules (alerts/dagadvisor.rules.yml) record every 5 minutes,
  // one series per pod: read instead of the three above with usage_from_recording_rules.
  std::string recorded_pod_cpu_rate = "namespace_pod:dagadvisor_container_cpu_usage_seconds:rate5m";
  std::string recorded_pod_memory =
      "namespace_pod:dagadvisor_container_memory_working_set_bytes:sum";
  std::string recorded_pod_gpu_utilization = "namespace_pod:dagadvisor_gpu_utilization:avg";

  bool operator==(const MetricNames&) const = default;
};

struct BasicAuth {
  std::string username;       // "" = no basic auth
  std::string password_file;  // re-read when it changes; never logged

  bool operator==(const BasicAuth&) const = default;
};

struct Tls {
  std::string ca_file;    // extra CA bundle (PEM); "" = the system's
  std::string cert_file;  // client certificate (PEM), for mutual TLS
  std::string key_file;   // its key
  bool insecure_skip_verify = false;

  bool operator==(const Tls&) const = default;
};

struct SigV4 {
  std::string region;           // "" = off; e.g. "eu-west-1" for Amazon Managed Prometheus
  std::string service = "aps";  // credentials: AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY

  bool operator==(const SigV4&) const = default;
};

/// How dagadvisor authenticates to an HTTP source and checks its certificate: one block, the same
/// keys under sources.prometheus, sources.airflow and sources.scrape.
struct HttpAuth {
  std::string bearer_token_file;  // re-read when it changes; never logged
  BasicAuth basic_auth;
  Tls tls;

  bool operator==(const HttpAuth&) const = default;
};

/// Cycles that read what changed (ingestion/incremental_reader.h): a full read first and at
/// least every `resync`, and in between only what can have changed since the previous read.
struct IncrementalReads {
  // 1h: a full read at 1/60 of the cycles at the default 1-minute interval (its cost spread
  // thin), and what the window reads miss at the edges (a series written later than `margin`,
  // a pod's spec changed in place) corrected within the hour. 0 = every read is a full one.
  // Only a daemon's cycles over a moving clock read incrementally (app/setup.h: Reads).
  Seconds resync{3600};
  // How far before the previous read the next window starts: the 5-minute lookback delta
  // (tolerations of pending pods are read with it) and a scrape interval or late sample.
  Seconds margin{360};
  Seconds usage_refresh{900};  // pod_usage (the costliest query) read at most this often

  bool operator==(const IncrementalReads&) const = default;
};

struct PrometheusSource : HttpAuth {
  std::string url;                             // "" = not configured; http(s)://host:port[/prefix]
  Seconds timeout{30};                         // per query
  std::map<std::string, std::string> headers;  // extra headers, e.g. X-Scope-OrgID for Mimir
  SigV4 sigv4;
  std::string selector;          // extra label matchers for every query, e.g. cluster="prod"
  Seconds lookback{6 * 3600.0};  // how far back finished pods are still rebuilt
  Seconds rate_window{300};      // window of the scheduler's rates and histogram quantiles
  Seconds usage_window{86400};   // window of observed pod usage (right-sizing needs days)
  double usage_cpu_quantile = 0.95;
  // Read usage from the mixin's recording rules (metrics.recorded_*): a range function over one
  // series a pod instead of a subquery over every container's series (issue #18: cost).
  bool usage_from_recording_rules = false;
  // The TSDB ends a series that stops being scraped with a staleness marker (Prometheus, Thanos,
  // Mimir, VictoriaMetrics): a pod is live when its kube_pod_info answers an instant selection.
  // Off, liveness is told from each series' own sample interval (three selections a read), which
  // also holds for TSDBs filled by backfill, where a deleted pod answers for 5 minutes more.
  bool staleness_markers = false;
  // Ask Prometheus to gzip its answers: 11x fewer bytes, paid in CPU on both sides (gzip was
  // ~2.2 s of Prometheus' CPU in a full read at the reference size). Off where Prometheus is on
  // the same network as the daemon and bytes are cheap.
  bool gzip = true;
  int max_concurrent_queries = 2;  // queries of one cycle in flight at once
  // Memory bounds of one cycle: per response body, all bodies in flight or waiting to be
  // decoded together, and series per query (what the model pays for).
  int max_response_mib = 256;
  int response_budget_mib = 512;
  int max_series_per_query = 500000;
  // Series one cycle's answers may hold in all: what the model pays for, bounded where
  // label-heavy answers each under max_series_per_query would add up (1.25 GB of RSS once).
  int max_series_per_cycle = 5000000;
  // Labels that only tell HA replicas (or shards) of one series apart; merged, never summed.
  std::vector<std::string> replica_labels = {"prometheus_replica", "replica"};
  IncrementalReads incremental;
  MetricNames metrics;

  bool operator==(const PrometheusSource&) const = default;
};

/// The optional read-only Kubernetes API source: workflow objects with exact task edges.
struct KubernetesSource {
  bool enabled = false;
  std::string kubeconfig;  // "" = $KUBECONFIG if set, else the in-cluster service account
  std::string context;     // kubeconfig context; "" = its current-context
  std::vector<std::string> namespaces;  // empty = all namespaces
  bool argo_workflows = true;           // LIST argoproj.io Workflows
  bool tekton_pipeline_runs = true;     // LIST tekton.dev PipelineRuns
  bool tekton_task_runs = true;         // and their TaskRuns (timings, retries)
  int page_size = 500;                  // items per LIST page; 0 = no limit (one response)
  Seconds timeout{30};                  // per request
  // What `kubectl get … -o json` printed, read instead of the API (exclusive with `enabled`).
  std::vector<std::string> object_files;

  bool operator==(const KubernetesSource&) const = default;
};

/// The optional Airflow REST API source: task lists (edges) and task instances of the runs
/// the pod adapters find.
/// Its bearer token is Airflow 3's JWT; basic auth is Airflow 2's basic_auth API backend.
struct AirflowSource : HttpAuth {
  bool enabled = false;
  std::string url;                   // http(s)://host:port[/prefix] of the API server, no /api/v1
  std::string api_version = "auto";  // "v1" (Airflow 2), "v2" (Airflow 3), "auto" (v2, else v1)
  Seconds timeout{30};               // per request
  // Distinct DAGs read per cycle; the rest are skipped, with a warning.
  int max_dags_per_cycle = 50;

  bool operator==(const AirflowSource&) const = default;
};

/// Direct scrape, with no Prometheus at all: kube-state-metrics, kube-scheduler (and cAdvisor,
/// dcgm-exporter) /metrics endpoints or exposition files, aggregated locally into what the
/// PromQL queries would return. Metric names come from sources.prometheus.metrics.
/// Its bearer token is e.g. the service-account token for the scheduler's :10259.
struct ScrapeSource : HttpAuth {
  // http(s)://host:port/metrics URLs and/or exposition files (".om" or a final "# EOF" means
  // OpenMetrics); empty = not configured.
  std::vector<std::string> targets;
  Seconds timeout{10};           // per target
  Seconds lookback{6 * 3600.0};  // pods seen by earlier scrapes of this process are kept this long

  bool operator==(const ScrapeSource&) const = default;
};

struct Sources {
  PrometheusSource prometheus;
  std::string snapshot_dir;  // replay a recorded snapshot instead of querying Prometheus
  ScrapeSource scrape;
  KubernetesSource kubernetes;
  AirflowSource airflow;

  bool operator==(const Sources&) const = default;
};

struct Server {
  std::string listen = "127.0.0.1:9731";  // loopback unless told otherwise
  int threads = 4;                        // API handlers running at once
  // Connections held at once, each on a light worker thread: this many slow or idle clients
  // cannot starve /healthz and /readyz (which never wait for a handler).
  int max_connections = 512;
  Seconds request_timeout{10};  // a request's head and body must arrive within this
  Seconds stale_after{300};     // analysis older than this is reported stale
  /// Prometheus web-config.yml (basic_auth_users with bcrypt hashes); "" = no authentication.
  std::string web_config_file;
  /// Per-run metrics are exported for at most this many runs (the longest), bounding cardinality.
  int metrics_top_runs = 50;

  bool operator==(const Server&) const = default;
};

/// The transfer-cost model: what a parent → child hand-off is estimated to cost by where the two
/// pods ran. The HEFT what-if and split-dependencies both use it.
struct TransferModel {
  Seconds same_node{0};
  Seconds same_zone{5};
  Seconds cross_zone{30};

  bool operator==(const TransferModel&) const = default;
};

/// What the replay predicts each cycle (docs/whatif.md, "Predictions"), bounded so that a large
/// cluster's cycle stays short: the replay is not yet bounded to the pools a change touches.
struct Prediction {
  bool enabled = true;
  int replays = 5;               // perturbations of the run times per figure
  int max_recommendations = 10;  // replayed individually per cycle, in rank order
  int max_pods = 20000;          // above it, the window is not replayed
  bool operator==(const Prediction&) const = default;
};

struct Analysis {
  std::string cluster = "default";  // name carried by every output
  Seconds interval{60};             // cycle period in `serve`
  // One deadline for everything a cycle fetches (all queries, retries and object reads);
  // 0 = the interval, so a stalled backend never delays the next cycle.
  Seconds cycle_timeout{0};
  TransferModel transfer;
  Prediction prediction;

  bool operator==(const Analysis&) const = default;
};

/// The node labels every detector reads the cluster's layout from.
struct ClusterLabels {
  std::string pool = "node-type";                    // a node's pool (node group)
  std::string zone = "topology.kubernetes.io/zone";  // its zone
  std::string workload = "workload-type";  // the label the advice uses to separate batch and online

  bool operator==(const ClusterLabels&) const = default;
};

/// The seed's labelling convention for plain labelled pods (SPEC §3, adapter 1).
struct WorkflowLabels {
  std::string dag_label = "dag-id";
  std::string run_label = "dag-run";
  std::string task_label = "task-id";
  std::string dependencies_annotation = "workflow.dependencies";
  /// Engines whose pods are rebuilt into runs (names not listed here are ignored).
  std::vector<std::string> engines = {"labels", "argo", "airflow", "tekton", "kubeflow", "spark"};
  /// Runs whose engine declares no edges get edges guessed from timing when this is true: a
  /// task's parents are the tasks that finished at most inference_window before it was created.
  bool infer_edges = true;
  Seconds inference_window{30};

  bool operator==(const WorkflowLabels&) const = default;
};

struct Logging {
  std::string level = "info";     // debug, info, warn, error
  std::string format = "logfmt";  // logfmt or json

  bool operator==(const Logging&) const = default;
};

/// Every setting, with its default in the member initialiser. One struct tree; the YAML file,
/// then command-line flags, override the defaults.
struct Config {
  Sources sources;
  Server server;
  Analysis analysis;
  ClusterLabels cluster_labels;
  WorkflowLabels workflow_labels;
  DetectorSettings detectors;  // each kind's, declared beside its detector
  Logging logging;

  bool operator==(const Config&) const = default;
};

}  // namespace dagadvisor::config
