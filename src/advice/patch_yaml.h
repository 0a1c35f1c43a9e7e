#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "advice/patch.h"

namespace dagadvisor::advice {

// Every patch built here loses nothing: it adds an entry, or sets one scalar or map key it names.
// List fields of the objects we patch are replaced whole by a strategic merge (Node taints, pod
// tolerations, nodeSelectorTerms and affinity terms have no merge key), so additions to them are
// JSON patches (RFC 6902, `kubectl patch --type=json`): an `add` to the end of the list, or, for
// an object that has no such list yet, a create guarded by a `test` that it is absent. Exactly
// one variant of a set applies to any object; the others fail without changing anything.

/// A JSON pointer to a place inside an object, one segment per element ("spec", "template", …).
using JsonPath = std::vector<std::string>;

/// "/spec/template/spec": a path as a JSON pointer, each segment escaped (`~` → `~0`, `/` → `~1`).
std::string jsonPointer(const JsonPath& path);

/// Where a pod spec (or a pod-spec-shaped block: an Argo WorkflowSpec, a Tekton podTemplate)
/// sits in an object: `base` exists in every such object, `inner` may be missing and is created
/// by the variants that need it (Tekton's taskRunTemplate/podTemplate).
struct PodSpecPath {
  JsonPath base;
  JsonPath inner{};
};

struct TaintSpec {
  std::string key;
  std::string value;
  std::string effect;
};

/// `kubectl taint node <node> key=value:Effect`: adds one taint, keeps the node's others.
std::string taintCommand(const std::string& node, const TaintSpec& taint);

/// JSON patches adding `taint` to a Node's spec.taints, for `kubectl patch node <name>
/// --type=json`: append to the list, or create it on a node that has none (the variants above).
/// They name no node, so one set serves every node.
JsonPatchVariants nodeTaintPatches(const TaintSpec& taint);

/// JSON patches setting the label `key` = `value` in a Node's metadata.labels, keeping its other
/// labels: set the key, or create the map on a node that has none.
JsonPatchVariants nodeLabelPatches(const std::string& key, const std::string& value);

/// A toleration `key` Exists for `effect`, as GPU workloads need it.
struct TolerationSpec {
  std::string key;
  std::string effect;
};

/// A preferred pod (anti-)affinity term: pods matching `match_labels` (label name → value) in
/// the same `topology_key` domain attract (or, when `anti`, repel) the pod, with `weight` 1..100.
struct PodAffinitySpec {
  std::vector<std::pair<std::string, std::string>> match_labels;
  std::vector<std::string> match_label_keys;  // the incoming pod's values join the selector
  std::string topology_key;
  int weight = 100;
  bool anti = false;
};

/// A preferred node affinity term: nodes with `key` In `values` score `weight` higher.
struct NodePreferenceSpec {
  std::string key;
  std::vector<std::string> values;
  int weight = 100;
};

/// JSON patches adding one toleration to the pod spec at `pod_spec` (e.g. spec/template/spec of
/// a Deployment): the variants described above, in the order to try them.
JsonPatchVariants tolerationPatches(const PodSpecPath& pod_spec, const TolerationSpec& spec);

/// JSON patches adding one preferred pod (anti-)affinity term to the pod spec at `pod_spec`,
/// keeping its other affinity terms (node affinity, required terms, other preferred terms).
JsonPatchVariants podAffinityPatches(const PodSpecPath& pod_spec, const PodAffinitySpec& spec);

/// JSON patches adding one preferred node affinity term to the pod spec at `pod_spec`.
JsonPatchVariants nodePreferencePatches(const PodSpecPath& pod_spec,
                                        const NodePreferenceSpec& spec);

/// JSON patches setting nodeSelector `key` = `value` in the pod spec at `pod_spec`: a required
/// placement that is ANDed with everything else (a new nodeSelectorTerm would be ORed with the
/// existing ones and restrict nothing). Other nodeSelector keys stay; `key` itself is set.
JsonPatchVariants nodeSelectorPatches(const PodSpecPath& pod_spec, const std::string& key,
                                      const std::string& value);

/// JSON patches setting the scalar `field` (e.g. priorityClassName) of the pod spec at `pod_spec`.
JsonPatchVariants setFieldPatches(const PodSpecPath& pod_spec, const std::string& field,
                                  const std::string& value);

/// A PriorityClass object to create (`kubectl apply -f`), never the global default. Its
/// preemptionPolicy is Never unless `preempt`: it moves its pods ahead in the scheduling queue
/// without evicting anything, which is safe when the evidence does not show what would be
/// preempted.
nlohmann::ordered_json priorityClassManifest(const std::string& name, int value,
                                             const std::string& description, bool preempt = false);

/// `kubectl label node <node> k=v …`: the same change as nodeLabelPatches() as a command.
std::string labelCommand(const std::string& node,
                         const std::vector<std::pair<std::string, std::string>>& labels);

/// The Node patch that labels `nodes` key=value, keeping their other labels: the JSON-patch
/// variants of nodeLabelPatches() and one `kubectl label node` command per node.
Patch nodeLabelPatch(const std::vector<std::string>& nodes, const std::string& key,
                     const std::string& value, std::string purpose, int step = 1);

/// New requests of one container, by its real name.
struct ContainerRequests {
  std::string name;
  std::int64_t cpu_millis = 0;
  std::int64_t memory_bytes = 0;
};

/// New resource requests for one workload's containers, named as they are in its pod template:
/// containers merge by name, so the others and every other field stay. `api_version`/`kind` name
/// the owner ("apps/v1", "Deployment"); with an empty kind the result is a pod-template fragment
/// (`spec.containers`) instead.
struct RequestsPatchSpec {
  std::string api_version;
  std::string kind;
  std::string namespace_;
  std::string name;
  std::vector<ContainerRequests> containers;
};
nlohmann::ordered_json requestsPatch(const RequestsPatchSpec& spec);

/// "250m" / "2" and "512Mi": quantities as the API server prints them.
std::string cpuQuantity(std::int64_t millis);
std::string memoryQuantity(std::int64_t bytes);

/// The kubectl-ready YAML of `patches` (Recommendation::patch_yaml), the one place it is
/// written: one document per JSON-patch variant, strategic-merge document or manifest, each
/// after `---` and `#` comment lines saying its step (when there are several), its purpose, the
/// command that applies it, which variant of how many it is, and where an engine takes it.
std::string renderPatchYaml(const std::vector<Patch>& patches);

/// One JSON-patch op list as YAML, as `kubectl patch --type=json --patch-file` reads it.
std::string yamlOfOps(const JsonPatchOps& ops);

}  // namespace dagadvisor::advice
