#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

namespace dagadvisor::testing {

/// The value of the first JSON-patch `add` in `patch_yaml` (multi-document) whose path ends with
/// `suffix`, e.g. "/tolerations/-": what the patch appends to an existing list. Null when none.
inline YAML::Node addedValue(const std::string& patch_yaml, const std::string& suffix) {
  for (const YAML::Node& doc : YAML::LoadAll(patch_yaml)) {
    if (!doc.IsSequence()) {
      continue;
    }
    for (const YAML::Node& op : doc) {
      const std::string path = op["path"].as<std::string>();
      if (op["op"].as<std::string>() == "add" && path.size() >= suffix.size() &&
          path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0) {
        return op["value"];
      }
    }
  }
  return YAML::Node(YAML::NodeType::Null);
}

}  // namespace dagadvisor::testing
