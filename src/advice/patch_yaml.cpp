#include "advice/patch_yaml.h"

#include <yaml-cpp/yaml.h>

namespace dagadvisor::advice {

std::string nodeTaintsPatch(const std::string& node, const std::vector<TaintSpec>& taints) {
  YAML::Emitter out;
  out << YAML::BeginMap;
  out << YAML::Key << "apiVersion" << YAML::Value << "v1";
  out << YAML::Key << "kind" << YAML::Value << "Node";
  out << YAML::Key << "metadata" << YAML::Value << YAML::BeginMap << YAML::Key << "name"
      << YAML::Value << node << YAML::EndMap;
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

std::string joinDocuments(const std::vector<std::pair<std::string, std::string>>& commented_docs) {
  std::string out;
  for (const auto& [comment, doc] : commented_docs) {
    out += "---\n# " + comment + "\n" + doc;
  }
  return out;
}

}  // namespace dagadvisor::advice
