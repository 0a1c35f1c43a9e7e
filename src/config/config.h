#pragma once

#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace dagadvisor::config {

using Seconds = std::chrono::duration<double>;

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
  std::string gpu_utilization = "DCGM_FI_DEV_GPU_UTIL";

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
  int max_concurrent_queries = 2;  // queries of one cycle in flight at once
  // Labels that only tell HA replicas (or shards) of one series apart; merged, never summed.
  std::vector<std::string> replica_labels = {"prometheus_replica", "replica"};
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

struct Analysis {
  std::string cluster = "default";  // name carried by every output
  Seconds interval{60};             // cycle period in `serve`
  // One deadline for everything a cycle fetches (all queries, retries and object reads);
  // 0 = the interval, so a stalled backend never delays the next cycle.
  Seconds cycle_timeout{0};
  TransferModel transfer;

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

struct GpuNodeHoarding {
  bool enabled = true;
  /// A GPU node is reported when a pending GPU pod does not fit on it only because non-GPU pods
  /// hold its CPU or memory, and at least this many of its GPUs are unallocated.
  int min_free_gpus = 1;
  /// With no GPU pod pending, report nodes anyway (as info) when this is false…
  bool require_pending_gpu_pods = true;
  /// …and non-GPU pods request at least this share of the node's CPU or memory.
  double min_non_gpu_share = 0.5;
  std::string taint_key = "nvidia.com/gpu";  // the taint the patch proposes

  bool operator==(const GpuNodeHoarding&) const = default;
};

struct SplitDependencies {
  bool enabled = true;
  /// A run is reported when at least min_split_edges of its parent → child edges ran on
  /// different nodes and either they are at least min_split_share of the edges whose two pods
  /// were placed, or at least min_cross_zone_edges of them crossed zones.
  int min_split_edges = 2;
  double min_split_share = 0.5;
  int min_cross_zone_edges = 2;
  /// The transfer-cost floor: a run is reported only when its split edges are estimated to
  /// cost at least this much in all. The default keeps every planted run of the simulator's
  /// scenarios (50 s and more at their analysis times) and drops the smallest incidental ones.
  Seconds min_run_transfer{45};

  bool operator==(const SplitDependencies&) const = default;
};

struct DagStacking {
  bool enabled = true;
  /// A run is reported when at least min_tasks_per_node of its tasks run on one node at the
  /// analysis time, that node's requested CPU (all pods) is at least min_node_cpu_share of its
  /// allocatable, and another node of the same pool has at least min_peer_free_cpu_share free.
  int min_tasks_per_node = 4;
  double min_node_cpu_share = 0.8;
  double min_peer_free_cpu_share = 0.5;

  bool operator==(const DagStacking&) const = default;
};

struct StrandedResources {
  bool enabled = true;
  /// A node's resource is exhausted when at most this share of its allocatable is unrequested…
  double max_exhausted_free_share = 0.05;
  /// …and another resource of that node is stranded when at least this share of it is free.
  double min_stranded_share = 0.25;
  /// The cluster fragmentation finding needs this many pending pods that fit the pooled free
  /// capacity but no single node.
  int min_fragmentation_blocked_pods = 1;

  bool operator==(const StrandedResources&) const = default;
};

struct CapacityShortfall {
  bool enabled = true;
  /// Pending pods younger than this are left out: the scheduler may not have tried them yet
  /// (unless its unschedulable + backoff queues hold more pods than the older ones).
  Seconds min_pending_age{60};
  /// Reported when the pending pods' requests exceed the free capacity of all nodes together
  /// in some resource and at least this many pods find no room in a first-fit-decreasing
  /// packing onto the nodes' free capacity.
  int min_unplaced_pods = 1;

  bool operator==(const CapacityShortfall&) const = default;
};

struct CriticalPathPriority {
  bool enabled = true;
  /// A pending task is critical when its slack in the run's remaining work (durations of
  /// unfinished tasks estimated from earlier runs of the same DAG) is at most max_critical_slack,
  /// and slack-rich when it is at least min_rich_slack. A run is reported when a critical task
  /// pends with no higher PriorityClass than a slack-rich pending task.
  Seconds max_critical_slack{0};
  Seconds min_rich_slack{300};
  /// The PriorityClass the advice creates for critical-path tasks, and its value.
  std::string priority_class = "dag-critical-path";
  int priority_value = 100000;

  bool operator==(const CriticalPathPriority&) const = default;
};

struct PoolMismatch {
  bool enabled = true;
  /// Node and pod shapes by memory per CPU core: at most compute_max_gib_per_core is
  /// CPU-heavy (compute-optimized), at least memory_min_gib_per_core memory-heavy.
  double compute_max_gib_per_core = 3;
  double memory_min_gib_per_core = 6;
  /// Pods requesting less than this share of their node's CPU and memory are left out.
  double min_pod_share = 0.1;

  bool operator==(const PoolMismatch&) const = default;
};

struct IdleSlots {
  bool enabled = true;
  /// A pending task whose parents have all finished (ready) is reported when it has waited at
  /// least this long since it became ready while a schedulable node has room for it now.
  Seconds min_ready_wait{60};

  bool operator==(const IdleSlots&) const = default;
};

struct OverRequest {
  bool enabled = true;
  /// Only nodes whose requested CPU or memory is at least this share of allocatable count.
  double min_node_requested_share = 0.8;
  /// A pod is over-requested when it used at most this share of a request…
  double max_usage_share = 0.5;
  /// …with at least this many usage samples, and the request is at least min_cpu_millis.
  int min_samples = 30;
  int min_cpu_millis = 100;
  /// The advice requests the observed use plus this headroom (0.2 = 20 % more).
  double headroom = 0.2;

  bool operator==(const OverRequest&) const = default;
};

struct BatchOnlineColocation {
  bool enabled = true;
  /// A node is reported when DAG task pods and long-running service pods (Deployment,
  /// ReplicaSet, StatefulSet) share it and its requested CPU is at least this share.
  double min_node_cpu_share = 0.8;

  bool operator==(const BatchOnlineColocation&) const = default;
};

struct SchedulingLatency {
  bool enabled = true;
  /// The service-level objectives of pod scheduling latency (created to scheduled).
  Seconds p95_slo{5};
  Seconds p99_slo{30};
  /// Without scheduler metrics, per-pod times need this many scheduled pods.
  int min_pods = 20;

  bool operator==(const SchedulingLatency&) const = default;
};

struct CohortComparison {
  bool enabled = true;
  /// The pod label that splits pods and runs into cohorts (A/B).
  std::string cohort_label = "scheduler-version";
  /// No verdict below this many samples per cohort, nor above this p-value.
  int min_samples = 20;
  double max_p_value = 0.05;

  bool operator==(const CohortComparison&) const = default;
};

struct ShardCandidate {
  bool enabled = true;
  /// A DAG with at least min_runs finished runs is reported when one task takes at least
  /// min_critical_share of the critical path in each of them…
  int min_runs = 3;
  double min_critical_share = 0.5;
  /// …and at least min_idle_nodes schedulable nodes could each take one more copy of it.
  int min_idle_nodes = 2;
  int max_chunks = 8;  // the advice splits the task into at most this many chunks

  bool operator==(const ShardCandidate&) const = default;
};

struct Detectors {
  GpuNodeHoarding gpu_node_hoarding;
  SplitDependencies split_dependencies;
  DagStacking dag_stacking;
  StrandedResources stranded_resources;
  CapacityShortfall capacity_shortfall;
  CriticalPathPriority critical_path_priority;
  PoolMismatch pool_mismatch;
  IdleSlots idle_slots;
  OverRequest over_request;
  BatchOnlineColocation batch_online_colocation;
  SchedulingLatency scheduling_latency;
  CohortComparison cohort_comparison;
  ShardCandidate shard_candidate;

  bool operator==(const Detectors&) const = default;
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
  Detectors detectors;
  Logging logging;

  bool operator==(const Config&) const = default;
};

}  // namespace dagadvisor::config
