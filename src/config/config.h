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
  std::string node_info = "kube_node_info";
  std::string node_labels = "kube_node_labels";
  std::string node_allocatable = "kube_node_status_allocatable";
  std::string node_capacity = "kube_node_status_capacity";
  std::string node_taint = "kube_node_spec_taint";
  std::string node_unschedulable = "kube_node_spec_unschedulable";
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

  bool operator==(const MetricNames&) const = default;
};

struct PrometheusSource {
  std::string url;                             // "" = not configured; http(s)://host:port[/prefix]
  Seconds timeout{30};                         // per query
  std::string bearer_token_file;               // re-read every cycle; never logged
  std::map<std::string, std::string> headers;  // extra headers, e.g. X-Scope-OrgID for Mimir
  std::string selector;          // extra label matchers for every query, e.g. cluster="prod"
  Seconds lookback{6 * 3600.0};  // how far back finished pods are still rebuilt
  MetricNames metrics;

  bool operator==(const PrometheusSource&) const = default;
};

struct Sources {
  PrometheusSource prometheus;
  std::string snapshot_dir;  // replay a recorded snapshot instead of querying Prometheus

  bool operator==(const Sources&) const = default;
};

struct Server {
  std::string listen = "127.0.0.1:9731";  // loopback unless told otherwise
  int threads = 4;
  Seconds stale_after{300};  // analysis older than this is reported stale

  bool operator==(const Server&) const = default;
};

struct Analysis {
  std::string cluster = "default";  // name carried by every output
  Seconds interval{60};             // cycle period in `serve`

  bool operator==(const Analysis&) const = default;
};

/// The seed's labelling convention for plain labelled pods (SPEC §3, adapter 1).
struct WorkflowLabels {
  std::string dag_label = "dag-id";
  std::string run_label = "dag-run";
  std::string task_label = "task-id";
  std::string dependencies_annotation = "workflow.dependencies";

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
  std::string taint_key = "nvidia.com/gpu";       // the taint the patch proposes
  std::string accelerator_label = "accelerator";  // node label that marks GPU nodes

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
  /// The transfer-cost model: what one edge is estimated to cost by placement.
  Seconds same_node_transfer{0};
  Seconds same_zone_transfer{5};
  Seconds cross_zone_transfer{30};
  std::string zone_label = "topology.kubernetes.io/zone";  // node label naming the zone

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
  std::string pool_label = "node-type";  // node label naming a node's pool

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
  /// Pending pods younger than this are left out: the scheduler may not have tried them yet.
  Seconds min_pending_age{60};
  /// Reported when the pending pods' requests exceed the free capacity of all nodes together
  /// in some resource and at least this many pods find no room in a first-fit-decreasing
  /// packing onto the nodes' free capacity.
  int min_unplaced_pods = 1;

  bool operator==(const CapacityShortfall&) const = default;
};

struct Detectors {
  GpuNodeHoarding gpu_node_hoarding;
  SplitDependencies split_dependencies;
  DagStacking dag_stacking;
  StrandedResources stranded_resources;
  CapacityShortfall capacity_shortfall;

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
  WorkflowLabels workflow_labels;
  Detectors detectors;
  Logging logging;

  bool operator==(const Config&) const = default;
};

}  // namespace dagadvisor::config
