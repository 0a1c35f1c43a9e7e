#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "advice/recommendation.h"
#include "analysis/finding.h"
#include "config/config.h"

namespace dagadvisor::advice {

using FindingList = std::vector<const analysis::Finding*>;

/// Findings grouped by "<namespace>/<dag>" of their evidence, in key order: run-level kinds
/// give one recommendation per DAG, since every run of a DAG shares its pod templates.
std::map<std::string, FindingList> groupByDag(const FindingList& findings);

/// Makes `rec` cover `findings`: the highest severity, one instance per finding target. Returns
/// the findings' evidence as an array, largest impact first, for the recommendation's own
/// evidence.
nlohmann::json cover(Recommendation& rec, const FindingList& findings);

using Labels = std::vector<std::pair<std::string, std::string>>;

/// The pod labels in a run-level finding's evidence[`field`]: "selector" selects the run's pods,
/// "dag_selector" every run's pods of its DAG, as the engine's adapter found them on the pods.
/// Empty when the evidence has none.
Labels labelsOf(const analysis::Finding& finding, const std::string& field);

/// "a", "a and b", "a, b and c": label keys as the advice text lists them.
std::string listKeys(const Labels& labels);

/// "12 s", "3 min", "2.5 h": durations as the advice text prints them.
std::string formatSeconds(double seconds);

/// The object whose pod template a patch edits: a ReplicaSet's pods are edited through their
/// Deployment (the name without its hash suffix). `kind` is empty when the owner has no pod
/// template a patch may change (Jobs and workflow engines: edit the workflow's definition).
struct WorkloadRef {
  std::string api_version;
  std::string kind;
  std::string name;
};
WorkloadRef workloadOf(const std::string& owner_kind, const std::string& owner_name);

}  // namespace dagadvisor::advice
