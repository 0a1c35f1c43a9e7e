#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace dagadvisor::advice {

struct TaintSpec {
  std::string key;
  std::string value;
  std::string effect;
};

/// A Node patch setting `spec.taints` to `taints`, for `kubectl patch node <name> --patch-file`.
/// Node taints have no merge key, so the list replaces the node's: pass the existing taints too.
std::string nodeTaintsPatch(const std::string& node, const std::vector<TaintSpec>& taints);

/// A pod-template fragment adding a toleration, to merge into the GPU workloads' pod spec
/// (Deployment/Job `spec.template.spec`, Argo template `podSpecPatch`, Airflow `pod_override`).
std::string tolerationPatch(const std::string& key, const std::string& effect);

/// A preferred pod (anti-)affinity term: pods matching `match_labels` (label name → value) in
/// the same `topology_key` domain attract (or, when `anti`, repel) the pod, with `weight` 1..100.
struct PodAffinitySpec {
  std::vector<std::pair<std::string, std::string>> match_labels;
  std::string topology_key;
  int weight = 100;
  bool anti = false;
};

/// A pod-template fragment (`spec.affinity`) with one preferred pod (anti-)affinity term, to
/// merge into the pod template spec of the workflow's tasks, as tolerationPatch().
std::string podAffinityPatch(const PodAffinitySpec& spec);

/// A PriorityClass object to create (`kubectl apply -f`): `value`, never the global default,
/// preempting lower priorities.
std::string priorityClassManifest(const std::string& name, int value,
                                  const std::string& description);

/// A pod-template fragment setting `spec.priorityClassName`, merged as tolerationPatch().
std::string priorityClassNamePatch(const std::string& name);

/// A Node patch adding `labels` (name → value) to the node's metadata.labels.
std::string nodeLabelsPatch(const std::string& node,
                            const std::vector<std::pair<std::string, std::string>>& labels);

/// A pod-template fragment with a required node affinity: `key` In `values`.
std::string nodeAffinityPatch(const std::string& key, const std::vector<std::string>& values);

/// New resource requests for one workload: its container (named `container`) requests
/// `cpu_millis` and `memory_bytes`. `api_version`/`kind` name the owner ("apps/v1",
/// "Deployment"); with an empty kind the result is a pod-template fragment instead.
struct RequestsPatchSpec {
  std::string api_version;
  std::string kind;
  std::string namespace_;
  std::string name;
  std::string container;
  std::int64_t cpu_millis = 0;
  std::int64_t memory_bytes = 0;
};
std::string requestsPatch(const RequestsPatchSpec& spec);

/// Joins YAML documents with `---`, each preceded by its `# comment` line.
std::string joinDocuments(const std::vector<std::pair<std::string, std::string>>& commented_docs);

}  // namespace dagadvisor::advice
