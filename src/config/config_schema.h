#pragma once

#include <string>

namespace dagadvisor::config {

/// A JSON Schema (draft 2020-12) of the configuration file, generated from the same field table
/// the loader uses: every key with its type, default and limits, unknown keys refused. For
/// `--print-config-schema` and for editors that check YAML against a schema.
std::string renderConfigSchema();

}  // namespace dagadvisor::config
