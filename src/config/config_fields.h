#pragma once

#include <map>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "config/config.h"
#include "config/field.h"

namespace dagadvisor::config {

/// The limits behind the rules (config/field.h), shared by validate() and the schema.
inline constexpr int kMinThreads = 1;
inline constexpr int kMaxThreads = 64;
inline constexpr std::string_view kLogLevels[] = {"debug", "info", "warn", "error"};
inline constexpr std::string_view kLogFormats[] = {"logfmt", "json"};
inline constexpr std::string_view kAirflowApiVersions[] = {"auto", "v1", "v2"};

/// Every setting of `config`, in file order, each listed exactly once; loading, rendering,
/// validation and the schema all walk this one table. The references point into `config`.
std::vector<Field> configFields(Config& config);

/// A setting that is gone, and what replaced it ("" when nothing did): a file that still sets it
/// gets an error that says so instead of "unknown key".
struct RetiredSetting {
  std::string_view path;
  std::string_view replaced_by;
};
inline constexpr RetiredSetting kRetiredSettings[] = {
    {"sources.prometheus.metrics.node_info", ""},
    {"sources.prometheus.metrics.node_capacity", ""},
    {"sources.prometheus.metrics.node_unschedulable", ""},
    {"detectors.gpu_node_hoarding.accelerator_label", ""},  // GPU nodes are those with GPUs
    {"detectors.split_dependencies.zone_label", "cluster_labels.zone"},
    {"detectors.dag_stacking.pool_label", "cluster_labels.pool"},
    {"detectors.pool_mismatch.pool_label", "cluster_labels.pool"},
    {"detectors.batch_online_colocation.workload_label", "cluster_labels.workload"},
    {"detectors.split_dependencies.same_node_transfer", "analysis.transfer.same_node"},
    {"detectors.split_dependencies.same_zone_transfer", "analysis.transfer.same_zone"},
    {"detectors.split_dependencies.cross_zone_transfer", "analysis.transfer.cross_zone"},
};

/// The settings as a tree of sections, in file order: the shape of the YAML file. A section has
/// children; a setting points to its Field (which must outlive the tree).
struct FieldNode {
  std::string_view name;  // the key: "prometheus", "url"
  std::string_view path;  // the dotted path: "sources.prometheus", "sources.prometheus.url"
  const Field* field = nullptr;
  std::vector<FieldNode> children;

  /// The child called `key`, or nullptr.
  const FieldNode* child(std::string_view key) const;
};

/// Groups `fields` by their dotted paths; the root has an empty name and path.
FieldNode fieldTree(const std::vector<Field>& fields);

/// For an unknown `key` in `section`: the closest sibling key (at most 2 edits away), else the
/// path of a setting or section so named elsewhere ("interval" → "analysis.interval"), else "".
std::string_view suggestKey(const FieldNode& root, const FieldNode& section, std::string_view key);

/// What the file expects for a field, in words: "a string", "an integer", "a duration", ...
std::string_view kindName(const FieldRef& ref);

/// `text` between double quotes, the way messages show values: "5 minutes" → "\"5 minutes\"".
std::string inQuotes(std::string_view text);

/// The shortest spelling of a number that reads back to the same double: 0.5 → "0.5".
std::string formatNumber(double value);

}  // namespace dagadvisor::config
