#include "advice/patch_yaml.h"

#include <yaml-cpp/yaml.h>

namespace dagadvisor::advice {

namespace {

void objectHeader(YAML::Emitter& out, const std::string& api_version, const std::string& kind,
                  const std::string& name, const std::string& namespace_ = "") {
  out << YAML::Key << "apiVersion" << YAML::Value << api_version;
  out << YAML::Key << "kind" << YAML::Value << kind;
  out << YAML::Key << "metadata" << YAML::Value << YAML::BeginMap << YAML::Key << "name"
      << YAML::Value << name;
  if (!namespace_.empty()) {
    out << YAML::Key << "namespace" << YAML::Value << namespace_;
  }
  out << YAML::EndMap;
}

std::string done(const YAML::Emitter& out) {
  return std::string(out.c_str()) + "\n";
}

// Quantities as the API server prints them: whole millicores, memory in Mi.
std::string cpuQuantity(std::int64_t millis) {
  return millis % 1000 == 0 ? std::to_string(millis / 1000) : std::to_string(millis) + "m";
}

std::string memoryQuantity(std::int64_t bytes) {
  constexpr std::int64_t kMi = 1024 * 1024;
  return std::to_string((bytes + kMi - 1) / kMi) + "Mi";
}

}  // namespace

std::string nodeTaintsPatch(const std::string& node, const std::vector<TaintSpec>& taints) {
  YAML::Emitter out;
  out << YAML::BeginMap;
  objectHeader(out, "v1", "Node", node);
  out << YAML::Key << "spec" << YAML::Value << YAML::BeginMap << YAML::Key << "taints"
      << YAML::Value << YAML::BeginSeq;
  for (const TaintSpec& t : taints) {
    out << YAML::BeginMap << YAML::Key << "key" << YAML::Value << t.key;
    if (!t.value.empty()) {
      out << YAML::Key << "value" << YAML::Value << t.value;
    }
    out << YAML::Key << "effect" << YAML::Value << t.effect << YAML::EndMap;
  }
  out << YAML::EndSeq << YAML::EndMap << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

std::string tolerationPatch(const std::string& key, const std::string& effect) {
  YAML::Emitter out;
  out << YAML::BeginMap << YAML::Key << "spec" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "tolerations" << YAML::Value << YAML::BeginSeq;
  out << YAML::BeginMap << YAML::Key << "key" << YAML::Value << key << YAML::Key << "operator"
      << YAML::Value << "Exists" << YAML::Key << "effect" << YAML::Value << effect << YAML::EndMap;
  out << YAML::EndSeq << YAML::EndMap << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

std::string podAffinityPatch(const PodAffinitySpec& spec) {
  YAML::Emitter out;
  out << YAML::BeginMap << YAML::Key << "spec" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "affinity" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << (spec.anti ? "podAntiAffinity" : "podAffinity") << YAML::Value
      << YAML::BeginMap;
  out << YAML::Key << "preferredDuringSchedulingIgnoredDuringExecution" << YAML::Value
      << YAML::BeginSeq << YAML::BeginMap;
  out << YAML::Key << "weight" << YAML::Value << spec.weight;
  out << YAML::Key << "podAffinityTerm" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "labelSelector" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "matchLabels" << YAML::Value << YAML::BeginMap;
  // Quoted: a run id such as "2026-11-30" or "42" must stay a string for the API server.
  for (const auto& [key, value] : spec.match_labels) {
    out << YAML::Key << key << YAML::Value << YAML::DoubleQuoted << value;
  }
  out << YAML::EndMap << YAML::EndMap;
  out << YAML::Key << "topologyKey" << YAML::Value << spec.topology_key;
  out << YAML::EndMap << YAML::EndMap << YAML::EndSeq;
  out << YAML::EndMap << YAML::EndMap << YAML::EndMap << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

std::string priorityClassManifest(const std::string& name, int value,
                                  const std::string& description) {
  YAML::Emitter out;
  out << YAML::BeginMap;
  objectHeader(out, "scheduling.k8s.io/v1", "PriorityClass", name);
  out << YAML::Key << "value" << YAML::Value << value;
  out << YAML::Key << "globalDefault" << YAML::Value << false;
  out << YAML::Key << "preemptionPolicy" << YAML::Value << "PreemptLowerPriority";
  out << YAML::Key << "description" << YAML::Value << description;
  out << YAML::EndMap;
  return done(out);
}

std::string priorityClassNamePatch(const std::string& name) {
  YAML::Emitter out;
  out << YAML::BeginMap << YAML::Key << "spec" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "priorityClassName" << YAML::Value << name;
  out << YAML::EndMap << YAML::EndMap;
  return done(out);
}

std::string nodeLabelsPatch(const std::string& node,
                            const std::vector<std::pair<std::string, std::string>>& labels) {
  YAML::Emitter out;
  out << YAML::BeginMap;
  out << YAML::Key << "apiVersion" << YAML::Value << "v1";
  out << YAML::Key << "kind" << YAML::Value << "Node";
  out << YAML::Key << "metadata" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value << node;
  out << YAML::Key << "labels" << YAML::Value << YAML::BeginMap;
  for (const auto& [key, value] : labels) {
    out << YAML::Key << key << YAML::Value << YAML::DoubleQuoted << value;
  }
  out << YAML::EndMap << YAML::EndMap << YAML::EndMap;
  return done(out);
}

std::string nodeAffinityPatch(const std::string& key, const std::vector<std::string>& values) {
  YAML::Emitter out;
  out << YAML::BeginMap << YAML::Key << "spec" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "affinity" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "nodeAffinity" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "requiredDuringSchedulingIgnoredDuringExecution" << YAML::Value
      << YAML::BeginMap;
  out << YAML::Key << "nodeSelectorTerms" << YAML::Value << YAML::BeginSeq << YAML::BeginMap;
  out << YAML::Key << "matchExpressions" << YAML::Value << YAML::BeginSeq << YAML::BeginMap;
  out << YAML::Key << "key" << YAML::Value << key;
  out << YAML::Key << "operator" << YAML::Value << "In";
  out << YAML::Key << "values" << YAML::Value << YAML::BeginSeq;
  for (const std::string& value : values) {
    out << YAML::DoubleQuoted << value;
  }
  out << YAML::EndSeq << YAML::EndMap << YAML::EndSeq << YAML::EndMap << YAML::EndSeq;
  out << YAML::EndMap << YAML::EndMap << YAML::EndMap << YAML::EndMap << YAML::EndMap;
  return done(out);
}

std::string requestsPatch(const RequestsPatchSpec& spec) {
  YAML::Emitter out;
  out << YAML::BeginMap;
  const bool object = !spec.kind.empty();
  if (object) {
    objectHeader(out, spec.api_version, spec.kind, spec.name, spec.namespace_);
    out << YAML::Key << "spec" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "template" << YAML::Value << YAML::BeginMap;
  }
  out << YAML::Key << "spec" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "containers" << YAML::Value << YAML::BeginSeq << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value << spec.container;
  out << YAML::Key << "resources" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "requests" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "cpu" << YAML::Value << YAML::DoubleQuoted << cpuQuantity(spec.cpu_millis);
  out << YAML::Key << "memory" << YAML::Value << YAML::DoubleQuoted
      << memoryQuantity(spec.memory_bytes);
  out << YAML::EndMap << YAML::EndMap << YAML::EndMap << YAML::EndSeq << YAML::EndMap;
  if (object) {
    out << YAML::EndMap << YAML::EndMap;
  }
  out << YAML::EndMap;
  return done(out);
}

std::string joinDocuments(const std::vector<std::pair<std::string, std::string>>& commented_docs) {
  std::string out;
  for (const auto& [comment, doc] : commented_docs) {
    out += "---\n# " + comment + "\n" + doc;
  }
  return out;
}

}  // namespace dagadvisor::advice
