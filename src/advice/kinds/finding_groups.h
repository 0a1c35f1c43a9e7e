#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "advice/recommendation.h"
#include "analysis/evidence.h"
#include "analysis/finding.h"
#include "config/config.h"

namespace dagadvisor::advice {

using FindingList = std::vector<const analysis::Finding*>;

/// Findings of the run-level kind `E` grouped by "<namespace>/<dag>" of their evidence's
/// RunScope, in key order: run-level kinds give one recommendation per DAG, since every run of
/// a DAG shares its pod templates.
template <typename E>
std::map<std::string, FindingList> groupByDag(const FindingList& findings) {
  std::map<std::string, FindingList> out;
  for (const analysis::Finding* f : findings) {
    const analysis::RunScope& scope = f->evidenceAs<E>().scope;
    out[scope.namespace_ + "/" + scope.dag].push_back(f);
  }
  return out;
}

/// `findings`, largest impact first (stable): the order cover() lists their evidence in.
FindingList byImpact(const FindingList& findings);

/// Makes `rec` cover `findings`: the highest severity, one instance per finding target. Returns
/// the findings' evidence as an array, largest impact first, for the recommendation's own
/// evidence. Past the first kEvidenceItems the entries are null: the recommender cuts the list
/// there and keeps its length (rendering every run's evidence for it to drop was half of the
/// split-dependency advice at the reference size).
nlohmann::json cover(Recommendation& rec, const FindingList& findings);

using Labels = analysis::LabelPairs;

/// A RunScope's selector (or dag_selector) as a patch's matchLabels: sorted by key, one value
/// per key (the last given), the order the advice text lists the keys in.
Labels labelsOf(const analysis::LabelPairs& selector);

/// "a", "a and b", "a, b and c": label keys as the advice text lists them.
std::string listKeys(const Labels& labels);

/// "12 s", "3 min", "2.5 h": durations as the advice text prints them.
std::string formatSeconds(double seconds);

/// The object whose pod template a patch edits: a ReplicaSet's pods are edited through their
/// Deployment (the name without its pod-template-hash suffix; deploymentOf). `kind` is empty when
/// the owner has no pod template a patch may change (Jobs and workflow engines: edit the workflow's
/// definition).
struct WorkloadRef {
  std::string api_version;
  std::string kind;
  std::string name;
};
WorkloadRef workloadOf(const std::string& owner_kind, const std::string& owner_name);

}  // namespace dagadvisor::advice
