#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/result.h"

namespace dagadvisor::app {

/// What the command line asked for; unset options leave the config file's values alone.
struct CliOptions {
  std::string command;  // serve, analyze, snapshot-record, check-config, version, help
  std::string config_path;
  std::optional<std::string> prometheus_url;
  std::optional<std::string> snapshot_dir;
  std::vector<std::string> object_files;  // --objects: kubectl's JSON, read instead of the API
  std::optional<std::string> at;          // RFC 3339 or unix seconds
  std::string output = "table";           // table, json, yaml
  bool details = false;                   // analyze --output table: every recommendation in full
  std::string recommendation_id;          // analyze --output table: only this one, in full
  std::string out_dir;                    // snapshot record
  std::string plan_path;                  // whatif
  std::string apply;                      // whatif: recommendation ids, comma-separated, or "all"
  std::optional<std::string> listen;
  std::optional<std::string> interval;
  std::optional<std::string> cluster;
  std::optional<std::string> log_level;
  std::optional<std::string> log_format;
  bool print_default_config = false;
  std::string help_text;
};

/// Parses argv; usage errors come back as an Error whose message is ready to print.
Result<CliOptions> parseOptions(int argc, char** argv);

}  // namespace dagadvisor::app
