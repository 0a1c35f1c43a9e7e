#pragma once

#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "advice/kind_list.h"
#include "config/config_loader.h"

namespace dagadvisor::config {

/// The fields named by the errors of loading `yaml`; empty when it loads.
inline std::vector<std::string> errorFields(std::string_view yaml) {
  const auto loaded = loadConfigText(yaml, advice::defaultConfig());
  std::vector<std::string> fields;
  if (const auto* errors = std::get_if<ConfigErrors>(&loaded)) {
    for (const Error& error : errors->errors) {
      fields.push_back(error.field);
    }
  }
  return fields;
}

}  // namespace dagadvisor::config
