#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dagadvisor::model {

/// One requirement of a node selector term: a node label (matchExpressions) or a node field
/// (matchFields: only metadata.name) against values, as the Kubernetes API writes it.
struct NodeSelectorRequirement {
  std::string key;        // the label key as the API spells it, or "metadata.name"
  std::string operator_;  // In, NotIn, Exists, DoesNotExist, Gt, Lt
  std::vector<std::string> values;
};

/// One of a required node affinity's nodeSelectorTerms: every requirement must hold (AND); a
/// pod's terms are alternatives (OR). A term with no requirement matches no node.
struct NodeSelectorTerm {
  std::vector<NodeSelectorRequirement> match_expressions;
  std::vector<NodeSelectorRequirement> match_fields;
};

/// A PriorityClass (scheduling.k8s.io/v1): what a pod naming it is worth to the scheduler.
struct PriorityClass {
  std::string name;
  std::int64_t value = 0;
  std::string preemption_policy = "PreemptLowerPriority";  // the API's default
  bool global_default = false;
};

/// What the Kubernetes API says of one pending pod and kube-state-metrics does not export.
struct PendingPodSpec {
  std::string namespace_;
  std::string name;
  std::optional<std::int64_t> priority;  // spec.priority, as admission resolved it
  std::string priority_class;            // spec.priorityClassName
  /// requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms; empty: none.
  std::vector<NodeSelectorTerm> required_node_affinity;
};

/// The scheduling facts read through the Kubernetes API in one cycle. nullopt: not known (no
/// API source, or its LIST failed); an empty list: known to be empty.
struct SchedulingSpecs {
  std::optional<std::vector<PriorityClass>> priority_classes;
  std::optional<std::vector<PendingPodSpec>> pending_pods;
};

}  // namespace dagadvisor::model
