#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace dagadvisor::advice {

/// One RFC 6902 operation. Advice writes only `add` and the `test` that guards it (value null:
/// "this level is absent"), so nothing an object holds is replaced or removed.
struct JsonPatchOp {
  std::string op;    // "add" or "test"
  std::string path;  // a JSON pointer from the root of the object the patch is applied to
  nlohmann::ordered_json value;
};
using JsonPatchOps = std::vector<JsonPatchOp>;

/// Alternative op lists for one change, in the order to try them: exactly one applies to any
/// object of the kind (the others fail on a `test` or a missing parent and change nothing).
using JsonPatchVariants = std::vector<JsonPatchOps>;

/// The object(s) a user patches or creates: one patch may name several objects of one kind.
struct PatchObject {
  std::string api_version;  // "apps/v1", "v1", "argoproj.io/v1alpha1", …
  std::string kind;         // "Deployment", "Node", "Pod", "WorkflowTemplate", …
  std::string namespace_;   // "" for cluster-scoped objects (Node, PriorityClass)
  std::vector<std::string> names;
};

/// The pods a change lands on: every label in `match_labels` must match ({}: any pod of the
/// namespace), and when `names` is not empty only pods of those names.
struct PodSelection {
  std::string namespace_;
  std::vector<std::pair<std::string, std::string>> match_labels;
  std::vector<std::string> names;
};

enum class PatchType {
  kJson,            // `variants` (kubectl patch --type=json)
  kStrategicMerge,  // `document` is the partial object (kubectl patch, the default type)
  kCreate,          // `document` is the full manifest (kubectl apply -f)
};

/// RFC 6902 as JSON: the ops of one variant ([{"op", "path", "value"}, …]), and the variants of a
/// patch as a list of those; what patch_yaml, the API and the comparison of patches all read.
nlohmann::ordered_json opsJson(const JsonPatchOps& ops);
nlohmann::ordered_json variantsJson(const JsonPatchVariants& variants);

/// "json", "strategic-merge", "create": the type as the API names it.
std::string_view patchTypeName(PatchType type);

/// One change of a recommendation, typed, so that a consumer (the simulator, a script) applies
/// it without reading YAML comments: what to change (`object` with `variants` or `document`),
/// and the same change as each selected Pod gets it (`pods` with `pod_variants` or
/// `pod_document`), for consumers that hold pods rather than their controllers. A
/// recommendation's patch_yaml is rendered from its patches (renderPatchYaml).
struct Patch {
  int step = 1;         // apply steps in increasing order; patches of one step in any order
  std::string purpose;  // one line, for humans
  PatchObject object;
  PatchType type = PatchType::kJson;
  JsonPatchVariants variants;           // kJson
  nlohmann::ordered_json document;      // kStrategicMerge: partial object; kCreate: manifest
  std::string command;                  // the kubectl command(s) that apply it, one a line
  std::optional<PodSelection> pods;     // when the change lands in pod specs
  JsonPatchVariants pod_variants;       // kJson: from the Pod root ("/spec/…")
  nlohmann::ordered_json pod_document;  // kStrategicMerge: the change as a partial Pod
  std::string needs_value;              // "zone": a value the user chooses per run
  /// How to write the same change in the engine's own terms: a comment of patch_yaml only.
  std::string engine_note;
};

/// `patches` with the JSON patches that make the same change to objects of one kind in one
/// namespace (the same ops, pods chosen by name) joined into one naming them all, its commands
/// one a line and its purpose `what` followed by how many it names: a change to the 200 GPU
/// workloads of a cluster is one patch, not 200. The others are kept as they are, in order.
std::vector<Patch> mergeAlike(std::vector<Patch> patches, const std::string& what);

}  // namespace dagadvisor::advice
