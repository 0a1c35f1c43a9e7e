#pragma once

#include <string>

#include "config/config.h"

namespace dagadvisor::config {

/// A JSON Schema (draft 2020-12) of the configuration file, generated from the same field table
/// the loader uses: every key with its type, default and limits, unknown keys refused. For
/// `--print-config-schema` and for editors that check YAML against a schema. The settings are
/// those of `defaults` (advice::defaultConfig() has every kind's).
std::string renderConfigSchema(Config defaults);

}  // namespace dagadvisor::config
