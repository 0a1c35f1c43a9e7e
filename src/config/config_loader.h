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

/// Reads a YAML configuration file: `defaults` overridden by what the file sets, then validate().
/// The settings that exist are those of `defaults`, so its detectors section lists every kind
/// (advice::defaultConfig()). Returns every problem at once (unknown keys with a suggestion,
/// wrong types, malformed durations, semantic errors); a missing or unreadable file is one error
/// naming it.
std::variant<Config, ConfigErrors> loadConfigFile(const std::string& path, Config defaults);

/// The same as loadConfigFile() for YAML already in memory; `origin` names it in syntax errors.
/// An empty text, or one with only comments, gives the defaults.
std::variant<Config, ConfigErrors> loadConfigText(std::string_view yaml, Config defaults,
                                                  std::string_view origin = "<text>");

/// Semantic checks (URLs, host:port, ranges, enumerations, metric names, selectors), each error
/// naming its field path. The loaders call it; call it again after command-line overrides.
ConfigErrors validate(const Config& config);

/// The full effective configuration as YAML, in the file format loadConfigText() reads back
/// to an equal Config (for --print-default-config and check-config).
std::string renderConfigYaml(const Config& config);

/// The value `ref` points to as a file would spell it, on one line: 0.5, 1m, nvidia.com/gpu,
/// [labels, argo] (for the settings tables of docs/findings.md).
std::string renderFieldValue(const FieldRef& ref);

}  // namespace dagadvisor::config
