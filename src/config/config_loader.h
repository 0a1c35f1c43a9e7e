#pragma once

#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "common/result.h"
#include "config/config.h"

namespace dagadvisor::config {

/// Every problem found in a configuration, each naming its field path in `Error::field`
/// ("sources.prometheus.url" with "not a URL (...)"). Empty means the configuration is valid.
struct ConfigErrors {
  std::vector<Error> errors;

  /// One problem per line, "path: message", in the order they were found.
  std::string describe() const;
};

/// Reads a YAML configuration file: Config{} defaults overridden by what the file sets, then
/// validate(). Returns every problem at once (unknown keys with a suggestion, wrong types,
/// malformed durations, semantic errors); a missing or unreadable file is one error naming it.
std::variant<Config, ConfigErrors> loadConfigFile(const std::string& path);

/// The same as loadConfigFile() for YAML already in memory; `origin` names it in syntax errors.
/// An empty text, or one with only comments, gives the defaults.
std::variant<Config, ConfigErrors> loadConfigText(std::string_view yaml,
                                                  std::string_view origin = "<text>");

/// Semantic checks (URLs, host:port, ranges, enumerations, metric names, selectors), each error
/// naming its field path. The loaders call it; call it again after command-line overrides.
ConfigErrors validate(const Config& config);

/// The full effective configuration as YAML, in the file format loadConfigText() reads back
/// to an equal Config (for --print-default-config and check-config).
std::string renderConfigYaml(const Config& config);

}  // namespace dagadvisor::config
