#include "model/adapters/adapter_registry.h"

#include <algorithm>
#include <string>

#include "model/adapters/airflow_pods.h"
#include "model/adapters/argo_pods.h"
#include "model/adapters/inferred_edges.h"
#include "model/adapters/kubeflow_pods.h"
#include "model/adapters/labelled_pods.h"
#include "model/adapters/spark_pods.h"
#include "model/adapters/tekton_pods.h"

namespace dagadvisor::model {

const std::vector<EngineAdapter>& engineAdapters() {
  static const std::vector<EngineAdapter> kAdapters = {
      {"kubeflow", claimKubeflowPod, kubeflowPodAnnotations},
      {"argo", claimArgoPod, argoPodAnnotations},
      {"tekton", claimTektonPod},
      {"airflow", claimAirflowPod, airflowPodAnnotations},
      {"spark", claimSparkPod},
      {"labels", claimLabelledPod, labelledPodAnnotations},
  };
  return kAdapters;
}

std::vector<std::string> podAnnotationsRead(const config::WorkflowLabels& keys) {
  std::vector<std::string> read;
  for (const EngineAdapter& adapter : engineAdapters()) {
    const bool enabled =
        std::find(keys.engines.begin(), keys.engines.end(), adapter.engine) != keys.engines.end();
    if (enabled && adapter.annotations != nullptr) {
      for (const std::string& key : adapter.annotations(keys)) {
        read.push_back(LabelSet::normalizeKey(key));
      }
    }
  }
  std::sort(read.begin(), read.end());
  read.erase(std::unique(read.begin(), read.end()), read.end());
  return read;
}

std::vector<WorkflowRun> buildRuns(const ClusterSnapshot& cluster,
                                   const config::WorkflowLabels& keys) {
  std::vector<const EngineAdapter*> enabled;
  std::vector<RunAssembler> assemblers;
  for (const EngineAdapter& adapter : engineAdapters()) {
    if (std::find(keys.engines.begin(), keys.engines.end(), adapter.engine) != keys.engines.end()) {
      enabled.push_back(&adapter);
      assemblers.emplace_back(std::string(adapter.engine));
    }
  }
  for (PodId id = 0; id < cluster.pods().size(); ++id) {
    const Pod& pod = cluster.pod(id);
    for (std::size_t a = 0; a < enabled.size(); ++a) {
      if (enabled[a]->claim(pod, id, keys, assemblers[a])) {
        break;
      }
    }
  }
  std::vector<WorkflowRun> out;
  for (RunAssembler& assembler : assemblers) {
    for (WorkflowRun& run : assembler.finish()) {
      inferEdgesIfMissing(run, cluster, keys);
      out.push_back(std::move(run));
    }
  }
  return out;
}

}  // namespace dagadvisor::model
