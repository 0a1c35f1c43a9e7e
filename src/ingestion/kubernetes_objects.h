#pragma once

#include <string>
#include <vector>

#include "config/config.h"
#include "model/adapters/object_source.h"
#include "sources/kubernetes/kube_list_source.h"

namespace dagadvisor::ingestion {

/// The workflow objects the Kubernetes API holds: Argo Workflows (argoproj.io/v1alpha1) and
/// Tekton PipelineRuns with their TaskRuns (tekton.dev/v1, or v1beta1 where v1 is not served),
/// LISTed per configured namespace (or cluster-wide) and parsed into exact task edges. An engine
/// that is not installed (404), a resource RBAC forbids (403), an unreachable API and objects
/// that do not parse are warnings, never errors.
///
/// It also LISTs what the scheduler reads and kube-state-metrics does not export: the
/// PriorityClasses (scheduling.k8s.io/v1, cluster-scoped) and the pending pods
/// (fieldSelector status.phase=Pending, per configured namespace), of which only the fields of
/// model::PendingPodSpec are kept.
class KubernetesObjects final : public model::ObjectSource {
 public:
  /// LISTs through `lists` (not owned; must outlive this object).
  KubernetesObjects(sources::KubeListSource& lists, config::KubernetesSource settings);

  model::ObjectFetch fetch(const std::vector<model::WorkflowRun>& runs) override;
  model::SchedulingFetch fetchScheduling() override;
  std::string describe() const override { return lists_.describe(); }

 private:
  void fetchArgo(model::ObjectFetch& out);
  void fetchTekton(model::ObjectFetch& out);
  void fetchPriorityClasses(model::SchedulingFetch& out);
  void fetchPendingPods(model::SchedulingFetch& out);

  sources::KubeListSource& lists_;
  config::KubernetesSource settings_;
};

}  // namespace dagadvisor::ingestion
