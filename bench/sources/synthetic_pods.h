#pragma once

// Deterministic kube-state-metrics-like series for the sources benchmarks: the labels of
// `kube_pod_labels` for one pod of a busy batch cluster (Airflow-style DAG labels included).

#include <cstddef>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace dagadvisor::bench {

using Labels = std::vector<std::pair<std::string, std::string>>;

/// The label set of pod number `i`, `__name__` first, as kube-state-metrics scraped by
/// Prometheus would return it.
inline Labels podLabels(std::size_t i) {
  char uid[40];
  std::snprintf(uid, sizeof uid, "%08zx-4b1c-4d2e-9f3a-%012zx", i * 2654435761u % 0xffffffffu,
                i * 40503u);
  const std::string dag = "etl_nightly_" + std::to_string(i % 300);
  const std::string task = "transform_partition_" + std::to_string(i % 997);
  return {
      {"__name__", "kube_pod_labels"},
      {"container", "kube-state-metrics"},
      {"endpoint", "http"},
      {"instance", "10.42." + std::to_string(i % 200) + ".17:8080"},
      {"job", "kube-state-metrics"},
      {"namespace", "team-" + std::to_string(i % 40)},
      {"pod", dag + "-" + task + "-" + std::to_string(i)},
      {"service", "kube-state-metrics"},
      {"uid", uid},
      {"label_app_kubernetes_io_name", "airflow-worker"},
      {"label_dag_id", dag},
      {"label_task_id", task},
      {"label_run_id", "scheduled__2026-11-30T00:00:00+00:00"},
      {"label_try_number", std::to_string(1 + i % 3)},
  };
}

}  // namespace dagadvisor::bench
