#pragma once

#include <chrono>
#include <map>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace dagadvisor::config {

using Seconds = std::chrono::duration<double>;
using StringList = std::vector<std::string>;
using StringMap = std::map<std::string, std::string>;

/// Where a setting lives in a Config, typed by what it holds. The alternative decides how the
/// setting is read from a file, written back and described in the schema.
using FieldRef =
    std::variant<std::string*, int*, double*, bool*, Seconds*, StringList*, StringMap*>;

/// The semantic rule a setting must satisfy, checked by validate().
enum class Rule {
  kNone,
  kNonEmpty,     // a non-empty string
  kUrl,          // empty, or http(s)://host[:port][/path]
  kHostPort,     // host:port with port 0..65535
  kThreads,      // kMinThreads..kMaxThreads
  kPositive,     // a duration > 0
  kNonNegative,  // a duration or count >= 0
  kAtLeastOne,   // a count >= 1 (a threshold of "at least N things" that 0 would make vacuous)
  kAtLeastTwo,   // a count >= 2 (what takes two to exist: a stack, a split into chunks)
  kShare,        // a number in [0, 1]
  kLogLevel,     // one of kLogLevels
  kLogFormat,    // one of kLogFormats
  kMetricName,   // one Prometheus metric name, or a non-empty list of them
  kLabelName,    // a list (possibly empty) of Prometheus label names
  kSelector,     // empty, or label matchers: cluster="prod",env=~"x.*"
  kHeaders,      // HTTP header names that are tokens
  kAirflowApi,   // one of kAirflowApiVersions
};

/// One setting: its dotted path (the YAML keys, identical to the member names), where it
/// lives, its rule, and what it means. `doc` is set where the setting is declared beside its
/// user (a detector's settings); the example file's comment and the docs table are checked
/// against it.
struct Field {
  std::string path;
  FieldRef ref;
  Rule rule = Rule::kNone;
  std::string_view doc = {};
};

}  // namespace dagadvisor::config
