#include "config/config_fields.h"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace dagadvisor::config {

namespace {

// The same auth block under every HTTP source (HttpAuth).
void addAuth(std::vector<Field>& out, const std::string& prefix, HttpAuth& auth) {
  out.insert(out.end(), {
                            {prefix + ".bearer_token_file", &auth.bearer_token_file},
                            {prefix + ".basic_auth.username", &auth.basic_auth.username},
                            {prefix + ".basic_auth.password_file", &auth.basic_auth.password_file},
                            {prefix + ".tls.ca_file", &auth.tls.ca_file},
                            {prefix + ".tls.cert_file", &auth.tls.cert_file},
                            {prefix + ".tls.key_file", &auth.tls.key_file},
                            {prefix + ".tls.insecure_skip_verify", &auth.tls.insecure_skip_verify},
                        });
}

}  // namespace

std::vector<Field> configFields(Config& config) {
  PrometheusSource& prom = config.sources.prometheus;
  MetricNames& metrics = prom.metrics;
  KubernetesSource& kube = config.sources.kubernetes;
  AirflowSource& airflow = config.sources.airflow;
  ScrapeSource& scrape = config.sources.scrape;
  WorkflowLabels& labels = config.workflow_labels;
  std::vector<Field> out = {
      {"sources.prometheus.url", &prom.url, Rule::kUrl},
      {"sources.prometheus.timeout", &prom.timeout, Rule::kPositive},
  };
  addAuth(out, "sources.prometheus", prom);
  out.insert(
      out.end(),
      {
          {"sources.prometheus.headers", &prom.headers, Rule::kHeaders},
          {"sources.prometheus.sigv4.region", &prom.sigv4.region},
          {"sources.prometheus.sigv4.service", &prom.sigv4.service, Rule::kNonEmpty},
          {"sources.prometheus.selector", &prom.selector, Rule::kSelector},
          {"sources.prometheus.lookback", &prom.lookback, Rule::kNonNegative},
          {"sources.prometheus.rate_window", &prom.rate_window, Rule::kPositive},
          {"sources.prometheus.usage_window", &prom.usage_window, Rule::kPositive},
          {"sources.prometheus.usage_cpu_quantile", &prom.usage_cpu_quantile, Rule::kShare},
          {"sources.prometheus.usage_from_recording_rules", &prom.usage_from_recording_rules},
          {"sources.prometheus.staleness_markers", &prom.staleness_markers},
          {"sources.prometheus.gzip", &prom.gzip},
          {"sources.prometheus.max_concurrent_queries", &prom.max_concurrent_queries,
           Rule::kThreads},
          {"sources.prometheus.max_response_mib", &prom.max_response_mib, Rule::kAtLeastOne},
          {"sources.prometheus.response_budget_mib", &prom.response_budget_mib, Rule::kAtLeastOne},
          {"sources.prometheus.max_series_per_query", &prom.max_series_per_query,
           Rule::kAtLeastOne},
          {"sources.prometheus.max_series_per_cycle", &prom.max_series_per_cycle,
           Rule::kAtLeastOne},
          {"sources.prometheus.replica_labels", &prom.replica_labels, Rule::kLabelName},
          {"sources.prometheus.incremental.resync", &prom.incremental.resync, Rule::kNonNegative},
          {"sources.prometheus.incremental.margin", &prom.incremental.margin, Rule::kPositive},
          {"sources.prometheus.incremental.usage_refresh", &prom.incremental.usage_refresh,
           Rule::kNonNegative},
          {"sources.prometheus.metrics.node_labels", &metrics.node_labels, Rule::kMetricName},
          {"sources.prometheus.metrics.node_allocatable", &metrics.node_allocatable,
           Rule::kMetricName},
          {"sources.prometheus.metrics.node_taint", &metrics.node_taint, Rule::kMetricName},
          {"sources.prometheus.metrics.pod_info", &metrics.pod_info, Rule::kMetricName},
          {"sources.prometheus.metrics.pod_labels", &metrics.pod_labels, Rule::kMetricName},
          {"sources.prometheus.metrics.pod_annotations", &metrics.pod_annotations,
           Rule::kMetricName},
          {"sources.prometheus.metrics.pod_owner", &metrics.pod_owner, Rule::kMetricName},
          {"sources.prometheus.metrics.pod_requests", &metrics.pod_requests, Rule::kMetricName},
          {"sources.prometheus.metrics.pod_tolerations", &metrics.pod_tolerations,
           Rule::kMetricName},
          {"sources.prometheus.metrics.pod_nodeselectors", &metrics.pod_nodeselectors,
           Rule::kMetricName},
          {"sources.prometheus.metrics.pod_phase", &metrics.pod_phase, Rule::kMetricName},
          {"sources.prometheus.metrics.pod_created", &metrics.pod_created, Rule::kMetricName},
          {"sources.prometheus.metrics.pod_scheduled_time", &metrics.pod_scheduled_time,
           Rule::kMetricName},
          {"sources.prometheus.metrics.pod_start_time", &metrics.pod_start_time, Rule::kMetricName},
          {"sources.prometheus.metrics.pod_completion_time", &metrics.pod_completion_time,
           Rule::kMetricName},
          {"sources.prometheus.metrics.scheduling_latency", &metrics.scheduling_latency,
           Rule::kMetricName},
          {"sources.prometheus.metrics.pod_init_requests", &metrics.pod_init_requests,
           Rule::kMetricName},
          {"sources.prometheus.metrics.scheduler_pending_pods", &metrics.scheduler_pending_pods,
           Rule::kMetricName},
          {"sources.prometheus.metrics.scheduler_unschedulable_pods",
           &metrics.scheduler_unschedulable_pods, Rule::kMetricName},
          {"sources.prometheus.metrics.scheduler_schedule_attempts",
           &metrics.scheduler_schedule_attempts, Rule::kMetricName},
          {"sources.prometheus.metrics.scheduler_preemption_attempts",
           &metrics.scheduler_preemption_attempts, Rule::kMetricName},
          {"sources.prometheus.metrics.scheduler_extension_point_duration",
           &metrics.scheduler_extension_point_duration, Rule::kMetricName},
          {"sources.prometheus.metrics.container_cpu_usage", &metrics.container_cpu_usage,
           Rule::kMetricName},
          {"sources.prometheus.metrics.container_memory_working_set",
           &metrics.container_memory_working_set, Rule::kMetricName},
          {"sources.prometheus.metrics.container_network_receive",
           &metrics.container_network_receive, Rule::kMetricName},
          {"sources.prometheus.metrics.gpu_utilization", &metrics.gpu_utilization,
           Rule::kMetricName},
          {"sources.prometheus.metrics.recorded_pod_cpu_rate", &metrics.recorded_pod_cpu_rate,
           Rule::kMetricName},
          {"sources.prometheus.metrics.recorded_pod_memory", &metrics.recorded_pod_memory,
           Rule::kMetricName},
          {"sources.prometheus.metrics.recorded_pod_gpu_utilization",
           &metrics.recorded_pod_gpu_utilization, Rule::kMetricName},
          {"sources.snapshot_dir", &config.sources.snapshot_dir},
          {"sources.scrape.targets", &scrape.targets},
          {"sources.scrape.timeout", &scrape.timeout, Rule::kPositive},
          {"sources.scrape.lookback", &scrape.lookback, Rule::kNonNegative},
      });
  addAuth(out, "sources.scrape", scrape);
  out.insert(out.end(),
             {
                 {"sources.kubernetes.enabled", &kube.enabled},
                 {"sources.kubernetes.kubeconfig", &kube.kubeconfig},
                 {"sources.kubernetes.context", &kube.context},
                 {"sources.kubernetes.namespaces", &kube.namespaces},
                 {"sources.kubernetes.argo_workflows", &kube.argo_workflows},
                 {"sources.kubernetes.tekton_pipeline_runs", &kube.tekton_pipeline_runs},
                 {"sources.kubernetes.tekton_task_runs", &kube.tekton_task_runs},
                 {"sources.kubernetes.page_size", &kube.page_size, Rule::kNonNegative},
                 {"sources.kubernetes.timeout", &kube.timeout, Rule::kPositive},
                 {"sources.kubernetes.object_files", &kube.object_files},
                 {"sources.airflow.enabled", &airflow.enabled},
                 {"sources.airflow.url", &airflow.url, Rule::kUrl},
                 {"sources.airflow.api_version", &airflow.api_version, Rule::kAirflowApi},
                 {"sources.airflow.timeout", &airflow.timeout, Rule::kPositive},
             });
  addAuth(out, "sources.airflow", airflow);
  out.insert(
      out.end(),
      {
          {"sources.airflow.max_dags_per_cycle", &airflow.max_dags_per_cycle, Rule::kNonNegative},
          {"server.listen", &config.server.listen, Rule::kHostPort},
          {"server.threads", &config.server.threads, Rule::kThreads},
          {"server.max_connections", &config.server.max_connections, Rule::kNonNegative},
          {"server.request_timeout", &config.server.request_timeout, Rule::kPositive},
          {"server.stale_after", &config.server.stale_after, Rule::kPositive},
          {"server.web_config_file", &config.server.web_config_file},
          {"server.metrics_top_runs", &config.server.metrics_top_runs, Rule::kNonNegative},
          {"analysis.cluster", &config.analysis.cluster, Rule::kNonEmpty},
          {"analysis.interval", &config.analysis.interval, Rule::kPositive},
          {"analysis.cycle_timeout", &config.analysis.cycle_timeout, Rule::kNonNegative},
          {"analysis.prediction.enabled", &config.analysis.prediction.enabled, Rule::kNone},
          {"analysis.prediction.replays", &config.analysis.prediction.replays, Rule::kAtLeastOne},
          {"analysis.prediction.max_recommendations",
           &config.analysis.prediction.max_recommendations, Rule::kAtLeastOne},
          {"analysis.prediction.max_pods", &config.analysis.prediction.max_pods, Rule::kAtLeastOne},
          {"analysis.transfer.same_node", &config.analysis.transfer.same_node, Rule::kNonNegative},
          {"analysis.transfer.same_zone", &config.analysis.transfer.same_zone, Rule::kNonNegative},
          {"analysis.transfer.cross_zone", &config.analysis.transfer.cross_zone,
           Rule::kNonNegative},
          {"cluster_labels.pool", &config.cluster_labels.pool, Rule::kNonEmpty},
          {"cluster_labels.zone", &config.cluster_labels.zone, Rule::kNonEmpty},
          {"cluster_labels.workload", &config.cluster_labels.workload, Rule::kNonEmpty},
          {"workflow_labels.dag_label", &labels.dag_label, Rule::kNonEmpty},
          {"workflow_labels.run_label", &labels.run_label, Rule::kNonEmpty},
          {"workflow_labels.task_label", &labels.task_label, Rule::kNonEmpty},
          {"workflow_labels.dependencies_annotation", &labels.dependencies_annotation,
           Rule::kNonEmpty},
          {"workflow_labels.engines", &labels.engines},
          {"workflow_labels.infer_edges", &labels.infer_edges},
          {"workflow_labels.inference_window", &labels.inference_window, Rule::kNonNegative},
      });
  std::vector<Field> detectors = config.detectors.fields();
  out.insert(out.end(), std::make_move_iterator(detectors.begin()),
             std::make_move_iterator(detectors.end()));
  out.insert(out.end(), {
                            {"logging.level", &config.logging.level, Rule::kLogLevel},
                            {"logging.format", &config.logging.format, Rule::kLogFormat},
                        });
  return out;
}

namespace {

constexpr std::size_t kMaxSuggestionDistance = 2;

std::size_t editDistance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) {
    row[j] = j;
  }
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t substitution = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
      diagonal = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, substitution});
    }
  }
  return row[b.size()];
}

// The first setting or section named `key` anywhere in the tree, in file order.
const FieldNode* findByName(const FieldNode& node, std::string_view key) {
  for (const FieldNode& child : node.children) {
    if (child.name == key) {
      return &child;
    }
    if (const FieldNode* found = findByName(child, key)) {
      return found;
    }
  }
  return nullptr;
}

}  // namespace

std::string_view suggestKey(const FieldNode& root, const FieldNode& section, std::string_view key) {
  std::string_view best;
  std::size_t best_distance = kMaxSuggestionDistance + 1;
  for (const FieldNode& sibling : section.children) {
    const std::size_t distance = editDistance(key, sibling.name);
    if (distance < best_distance && distance < key.size()) {
      best = sibling.name;
      best_distance = distance;
    }
  }
  if (best.empty()) {
    const FieldNode* elsewhere = findByName(root, key);
    best = elsewhere == nullptr ? std::string_view() : elsewhere->path;
  }
  return best;
}

const FieldNode* FieldNode::child(std::string_view key) const {
  for (const FieldNode& node : children) {
    if (node.name == key) {
      return &node;
    }
  }
  return nullptr;
}

FieldNode fieldTree(const std::vector<Field>& fields) {
  FieldNode root;
  for (const Field& field : fields) {
    FieldNode* node = &root;
    const std::string_view path = field.path;  // the tree's names are views into the fields
    for (std::size_t start = 0; start <= path.size();) {
      const std::size_t dot = std::min(path.find('.', start), path.size());
      const std::string_view name = path.substr(start, dot - start);
      if (node->children.empty() || node->children.back().name != name) {
        node->children.push_back(FieldNode{name, path.substr(0, dot), nullptr, {}});
      }
      node = &node->children.back();
      start = dot + 1;
    }
    node->field = &field;
  }
  return root;
}

std::string_view kindName(const FieldRef& ref) {
  static constexpr std::string_view kNames[] = {
      "a string",   "an integer",        "a number",        "a boolean",
      "a duration", "a list of strings", "a map of strings"};
  static_assert(std::size(kNames) == std::variant_size_v<FieldRef>);
  return kNames[ref.index()];
}

std::string inQuotes(std::string_view text) {
  return "\"" + std::string(text) + "\"";
}

std::string formatNumber(double value) {
  // YAML's spellings, so that a rendered file reads back even for these.
  if (std::isnan(value)) {
    return ".nan";
  }
  if (std::isinf(value)) {
    return value > 0 ? ".inf" : "-.inf";
  }
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

}  // namespace dagadvisor::config
