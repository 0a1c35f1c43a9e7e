#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "config/config.h"
#include "model/adapters/run_assembler.h"
#include "model/cluster.h"

namespace dagadvisor::model {

/// Claims an Airflow worker or KubernetesPodOperator pod: labels `dag_id` and `task_id` plus one
/// of Airflow's own (`try_number`, `airflow_version`, `airflow-worker`, `kubernetes_pod_operator`),
/// which tells it from the seed convention's `dag-id`/`task-id` (the same keys once exported by
/// kube-state-metrics). The raw annotations win over the labels, which Airflow sanitises and
/// hashes. The run is `run_id` (else the logical or execution date), a mapped task instance is
/// its own task `task[map_index]`, and `try_number` orders the attempts. Spark executors of a
/// SparkKubernetesOperator task fold into the task without counting as attempts.
bool claimAirflowPod(const Pod& pod, PodId id, const config::WorkflowLabels& keys,
                     RunAssembler& runs);
/// The pod annotations claimAirflowPod reads.
std::vector<std::string> airflowPodAnnotations(const config::WorkflowLabels& keys);

}  // namespace dagadvisor::model
