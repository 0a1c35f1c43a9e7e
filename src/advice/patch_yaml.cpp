#include "advice/patch_yaml.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>

namespace dagadvisor::advice {

namespace {

using ojson = nlohmann::ordered_json;

constexpr const char* kPreferred = "preferredDuringSchedulingIgnoredDuringExecution";

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// A string YAML could read as something else (a number, a date, a boolean, null) is quoted: a
// label value "42", "2026-11-30" or "true" must reach the API server as a string.
bool needsQuotes(const std::string& s) {
  static const char* const kWords[] = {"true", "false", "yes", "no",   "on",
                                       "off",  "y",     "n",   "null", "~"};
  if (s.empty() || std::any_of(std::begin(kWords), std::end(kWords),
                               [&](const char* w) { return lower(s) == w; })) {
    return true;
  }
  // Numbers, dates ("2026-11-30") and times: anything that starts like one.
  const unsigned char first = static_cast<unsigned char>(s.front());
  return std::isdigit(first) || first == '-' || first == '+' || first == '.';
}

void emit(YAML::Emitter& out, const ojson& value) {
  if (value.is_object()) {
    out << YAML::BeginMap;
    for (const auto& [key, item] : value.items()) {
      out << YAML::Key << key << YAML::Value;
      emit(out, item);
    }
    out << YAML::EndMap;
  } else if (value.is_array()) {
    out << YAML::BeginSeq;
    for (const ojson& item : value) {
      emit(out, item);
    }
    out << YAML::EndSeq;
  } else if (value.is_string()) {
    const auto& s = value.get_ref<const std::string&>();
    if (needsQuotes(s)) {
      out << YAML::DoubleQuoted;
    }
    out << s;
  } else if (value.is_boolean()) {
    out << value.get<bool>();
  } else if (value.is_number_integer()) {
    out << value.get<std::int64_t>();
  } else if (value.is_null()) {
    out << YAML::Null;
  } else {
    out << value.get<double>();
  }
}

// ordered_json keeps the order fields are written in, so documents read as kubectl prints them.
std::string yamlOf(const ojson& value) {
  YAML::Emitter out;
  emit(out, value);
  return std::string(out.c_str()) + "\n";
}

// `value` at `rel` below a missing level: the levels become maps, a "-" a one-entry list.
ojson nest(const JsonPath& rel, std::size_t from, const ojson& leaf) {
  if (from == rel.size()) {
    return leaf;
  }
  const ojson inner = nest(rel, from + 1, leaf);
  if (rel[from] == "-") {
    return ojson::array({inner});
  }
  return ojson{{rel[from], inner}};
}

JsonPath joined(const JsonPath& base, const JsonPath& rel, std::size_t count) {
  JsonPath path = base;
  path.insert(path.end(), rel.begin(), rel.begin() + static_cast<std::ptrdiff_t>(count));
  return path;
}

JsonPatchOp addOp(const JsonPath& path, ojson value) {
  return {"add", jsonPointer(path), std::move(value)};
}

// The variants that put `leaf` at base/rel (rel ends in "-" to append to a list, or in a map
// key): first the add that needs every level to exist, then, one level shallower each time, a
// test that the level is absent (null) and an add that creates it with the rest nested inside.
// Every level of `base` must exist (a pod spec always does).
JsonPatchVariants addVariants(const PodSpecPath& where, const JsonPath& field, const ojson& leaf) {
  const JsonPath& base = where.base;
  JsonPath rel = where.inner;
  rel.insert(rel.end(), field.begin(), field.end());
  JsonPatchVariants variants;
  variants.push_back({addOp(joined(base, rel, rel.size()), leaf)});
  for (std::size_t depth = rel.size() - 1; depth >= 1; --depth) {
    const JsonPath missing = joined(base, rel, depth);
    variants.push_back(
        {{"test", jsonPointer(missing), nullptr}, addOp(missing, nest(rel, depth, leaf))});
  }
  return variants;
}

ojson header(const std::string& api_version, const std::string& kind, const std::string& name,
             const std::string& namespace_ = "") {
  ojson metadata = {{"name", name}};
  if (!namespace_.empty()) {
    metadata["namespace"] = namespace_;
  }
  return {{"apiVersion", api_version}, {"kind", kind}, {"metadata", metadata}};
}

std::string commentLines(const std::string& comment) {
  std::string out = "# ";
  for (const char c : comment) {
    out += c;
    if (c == '\n') {
      out += "# ";
    }
  }
  return out + "\n";
}

// How to apply one document of `patch`: its command; for Nodes, the JSON patch on each node or
// the kubectl taint/label commands (both listed with the first variant only).
std::string indentedLines(const std::string& lines) {
  std::string text = "  ";
  for (const char c : lines) {
    text += c == '\n' ? std::string("\n  ") : std::string(1, c);
  }
  return text;
}

std::string applyText(const Patch& patch, bool first) {
  if (patch.object.kind != "Node" && patch.object.names.size() <= 1) {
    return patch.command;
  }
  if (patch.object.kind != "Node") {
    return first ? "one kubectl patch each:\n" + indentedLines(patch.command)
                 : "kubectl patch each of them as above";
  }
  if (!first) {
    return "kubectl patch each node as above, or run the kubectl commands above";
  }
  std::string text =
      "on each node, kubectl patch node <name> --type=json --patch-file <this "
      "document>:";
  for (const std::string& node : patch.object.names) {
    text += "\n  kubectl patch node " + node + " --type=json --patch-file <this document>";
  }
  return text + "\nor run:\n" + indentedLines(patch.command);
}

}  // namespace

std::string jsonPointer(const JsonPath& path) {
  std::string out;
  for (const std::string& segment : path) {
    out += '/';
    for (const char c : segment) {
      out += c == '~' ? "~0" : c == '/' ? "~1" : std::string(1, c);
    }
  }
  return out;
}

std::string taintCommand(const std::string& node, const TaintSpec& taint) {
  return "kubectl taint node " + node + " " + taint.key +
         (taint.value.empty() ? "" : "=" + taint.value) + ":" + taint.effect;
}

JsonPatchVariants nodeTaintPatches(const TaintSpec& taint) {
  ojson entry = {{"key", taint.key}};
  if (!taint.value.empty()) {
    entry["value"] = taint.value;
  }
  entry["effect"] = taint.effect;
  // From the object root: a trimmed Node may have `spec: null`, which the deepest variant fills.
  return addVariants({{}}, {"spec", "taints", "-"}, entry);
}

JsonPatchVariants tolerationPatches(const PodSpecPath& pod_spec, const TolerationSpec& spec) {
  const ojson entry = {{"key", spec.key}, {"operator", "Exists"}, {"effect", spec.effect}};
  return addVariants(pod_spec, {"tolerations", "-"}, entry);
}

JsonPatchVariants podAffinityPatches(const PodSpecPath& pod_spec, const PodAffinitySpec& spec) {
  ojson match = ojson::object();
  for (const auto& [key, value] : spec.match_labels) {
    match[key] = value;
  }
  ojson affinity_term = {{"labelSelector", {{"matchLabels", match}}}};
  if (!spec.match_label_keys.empty()) {
    affinity_term["matchLabelKeys"] = spec.match_label_keys;
  }
  affinity_term["topologyKey"] = spec.topology_key;
  const ojson term = {{"weight", spec.weight}, {"podAffinityTerm", affinity_term}};
  return addVariants(
      pod_spec, {"affinity", spec.anti ? "podAntiAffinity" : "podAffinity", kPreferred, "-"}, term);
}

JsonPatchVariants nodePreferencePatches(const PodSpecPath& pod_spec,
                                        const NodePreferenceSpec& spec) {
  const ojson expression = {{"key", spec.key}, {"operator", "In"}, {"values", spec.values}};
  const ojson term = {{"weight", spec.weight},
                      {"preference", {{"matchExpressions", ojson::array({expression})}}}};
  return addVariants(pod_spec, {"affinity", "nodeAffinity", kPreferred, "-"}, term);
}

JsonPatchVariants nodeSelectorPatches(const PodSpecPath& pod_spec, const std::string& key,
                                      const std::string& value) {
  return addVariants(pod_spec, {"nodeSelector", key}, value);
}

JsonPatchVariants setFieldPatches(const PodSpecPath& pod_spec, const std::string& field,
                                  const std::string& value) {
  // `add` on an object member sets it whether or not it is there: only this field changes.
  return addVariants(pod_spec, {field}, value);
}

ojson priorityClassManifest(const std::string& name, int value, const std::string& description,
                            bool preempt) {
  ojson doc = header("scheduling.k8s.io/v1", "PriorityClass", name);
  doc["value"] = value;
  doc["globalDefault"] = false;
  doc["preemptionPolicy"] = preempt ? "PreemptLowerPriority" : "Never";
  doc["description"] = description;
  return doc;
}

JsonPatchVariants nodeLabelPatches(const std::string& key, const std::string& value) {
  // Every object has metadata; a trimmed Node may have no labels, which the second variant adds.
  return addVariants({{"metadata"}}, {"labels", key}, value);
}

std::string labelCommand(const std::string& node,
                         const std::vector<std::pair<std::string, std::string>>& labels) {
  std::string out = "kubectl label node " + node;
  for (const auto& [key, value] : labels) {
    out += " " + key + "=" + value;
  }
  return out;
}

Patch nodeLabelPatch(const std::vector<std::string>& nodes, const std::string& key,
                     const std::string& value, std::string purpose, int step) {
  Patch patch;
  patch.step = step;
  patch.purpose = std::move(purpose);
  patch.object = {"v1", "Node", "", nodes};
  patch.variants = nodeLabelPatches(key, value);
  for (const std::string& node : nodes) {
    patch.command += (patch.command.empty() ? "" : "\n") + labelCommand(node, {{key, value}});
  }
  return patch;
}

std::string cpuQuantity(std::int64_t millis) {
  return millis % 1000 == 0 ? std::to_string(millis / 1000) : std::to_string(millis) + "m";
}

std::string memoryQuantity(std::int64_t bytes) {
  constexpr std::int64_t kMi = 1024 * 1024;
  return std::to_string((bytes + kMi - 1) / kMi) + "Mi";
}

ojson requestsPatch(const RequestsPatchSpec& spec) {
  ojson containers = ojson::array();
  for (const ContainerRequests& c : spec.containers) {
    const ojson requests = {{"cpu", cpuQuantity(c.cpu_millis)},
                            {"memory", memoryQuantity(c.memory_bytes)}};
    containers.push_back({{"name", c.name}, {"resources", {{"requests", requests}}}});
  }
  const ojson pod_spec = {{"spec", {{"containers", containers}}}};
  if (spec.kind.empty()) {
    return pod_spec;
  }
  ojson doc = header(spec.api_version, spec.kind, spec.name, spec.namespace_);
  doc["spec"] = {{"template", pod_spec}};
  return doc;
}

std::string yamlOfOps(const JsonPatchOps& ops) {
  return yamlOf(opsJson(ops));
}

std::string renderPatchYaml(const std::vector<Patch>& patches) {
  const bool stepped = std::any_of(patches.begin(), patches.end(),
                                   [&](const Patch& p) { return p.step != patches.front().step; });
  std::string out;
  for (const Patch& patch : patches) {
    std::vector<std::string> bodies;
    if (patch.type == PatchType::kJson) {
      std::transform(patch.variants.begin(), patch.variants.end(), std::back_inserter(bodies),
                     yamlOfOps);
    } else {
      bodies.push_back(yamlOf(patch.document));
    }
    const std::string lead =
        (stepped ? "step " + std::to_string(patch.step) + ": " : std::string()) + patch.purpose;
    for (std::size_t i = 0; i < bodies.size(); ++i) {
      std::string comment = lead + ": " + applyText(patch, i == 0);
      if (bodies.size() > 1) {
        comment += "\nvariant " + std::to_string(i + 1) + " of " + std::to_string(bodies.size()) +
                   ": apply the first one kubectl accepts; the others fail and change nothing";
      }
      if (i == 0 && !patch.engine_note.empty()) {
        comment += "\n" + patch.engine_note;
      }
      out += "---\n" + commentLines(comment) + bodies[i];
    }
  }
  return out;
}

}  // namespace dagadvisor::advice
