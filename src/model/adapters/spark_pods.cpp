#include "model/adapters/spark_pods.h"

namespace dagadvisor::model {

bool claimSparkPod(const Pod& pod, PodId id, const config::WorkflowLabels& /*keys*/,
                   RunAssembler& runs) {
  constexpr std::string_view kAppLabel = "spark-app-selector";
  const auto app = pod.labels.get(kAppLabel);
  if (!app || app->empty()) {
    return false;
  }
  const auto name = pod.labels.get("spark-app-name");
  const bool driver = pod.labels.get("spark-role") != std::optional<std::string_view>("executor");
  if (!driver && (!name || name->empty())) {
    return true;  // its run would be keyed by another DAG name than its driver's: leave it out
  }
  const std::string_view dag = name && !name->empty() ? *name : *app;
  PodClaim claim{dag, *app, dag, pod.created.value_or(0), {}, driver, {{kAppLabel, *app}}};
  if (name && !name->empty()) {
    claim.dag_selector = {{"spark-app-name", *name}};
  }
  runs.add(pod, id, std::move(claim));
  return true;
}

}  // namespace dagadvisor::model
