#pragma once

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

/// Joins YAML documents with `---`, each preceded by its `# comment` line.
std::string joinDocuments(const std::vector<std::pair<std::string, std::string>>& commented_docs);

}  // namespace dagadvisor::advice
