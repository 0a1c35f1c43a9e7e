#pragma once

#include <string>
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

/// Joins YAML documents with `---`, each preceded by its `# comment` line.
std::string joinDocuments(const std::vector<std::pair<std::string, std::string>>& commented_docs);

}  // namespace dagadvisor::advice
