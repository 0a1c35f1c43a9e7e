#include "advice/kinds/split_dependencies.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <tuple>
#include <utility>

#include "advice/engine_patch.h"
#include "advice/kinds/finding_groups.h"
#include "advice/patch_yaml.h"
#include "analysis/detectors/split_dependencies.h"

namespace dagadvisor::advice {
namespace {

using analysis::SplitDependenciesEvidence;
using nlohmann::json;

struct DagTotals {
  std::int64_t split_edges = 0;
  std::int64_t cross_zone_edges = 0;
  double transfer_seconds = 0;
  double worst_critical_seconds = 0;
};

std::string actionText(const std::string& dag, const std::string& keys,
                       const config::Config& config) {
  return "Add a preferred pod affinity (weight 100, topologyKey " + config.cluster_labels.zone +
         ") to the pod template of every task of " + dag +
         ", selecting the pods of the same run (" + keys +
         ", the labels its engine puts on them), so that children are placed in their parents' "
         "zone and fetch their inputs without crossing zones. The values below are those of the "
         "last run reported: template them per run the way the engine sets the labels. "
         "Preferred, not required: a full zone still accepts the pod elsewhere.";
}

DagTotals sum(const FindingList& runs) {
  DagTotals totals;
  for (const analysis::Finding* f : runs) {
    const auto& e = f->evidenceAs<SplitDependenciesEvidence>();
    totals.split_edges += static_cast<std::int64_t>(e.splitNodeEdges());
    totals.cross_zone_edges += static_cast<std::int64_t>(e.cross_zone_edges);
    totals.transfer_seconds += e.estimated_transfer_seconds;
    totals.worst_critical_seconds =
        std::max(totals.worst_critical_seconds, e.critical_path_transfer_seconds);
  }
  return totals;
}

Recommendation adviseDag(const std::string& dag, const FindingList& findings,
                         const config::Config& config) {
  const analysis::RunScope& latest = findings.back()->evidenceAs<SplitDependenciesEvidence>().scope;
  const DagTotals totals = sum(findings);
  Recommendation rec;
  rec.kind = std::string(SplitDependenciesEvidence::kKind);
  rec.target = "dag/" + dag;
  json runs = cover(rec, findings);
  PodAffinitySpec spec;
  spec.match_labels = labelsOf(latest.selector);
  if (spec.match_labels.empty()) {
    spec.match_labels = {{config.workflow_labels.dag_label, latest.dag},
                         {config.workflow_labels.run_label, latest.run}};
  }
  spec.topology_key = config.cluster_labels.zone;
  const std::string keys = listKeys(spec.match_labels);
  bool templated = false;
  std::tie(spec.match_labels, templated) = perRunLabels(latest.engine, spec.match_labels);
  rec.patch_yaml = joinDocuments(
      podChangeDocs({latest.engine, latest.namespace_, "", latest.dag}, PodField::kAffinity,
                    "add a preferred pod affinity to the run's own pods" +
                        (templated ? std::string() : "; set " + keys + " per run"),
                    [&](const PodSpecSite& site) { return podAffinityPatches(site.path, spec); }));
  rec.title = dag + ": " + std::to_string(totals.split_edges) +
              " dependency edge(s) split across nodes (" + std::to_string(totals.cross_zone_edges) +
              " across zones) in " + std::to_string(findings.size()) + " run(s)";
  rec.action =
      actionText(dag, keys, config) + " " + engineNotes({latest.engine}, PodField::kAffinity);
  rec.impact_score = totals.transfer_seconds;
  rec.impact = "about " + formatSeconds(totals.transfer_seconds) +
               " of estimated transfer in all; up to " +
               formatSeconds(totals.worst_critical_seconds) +
               " of makespan per run (the transfer on its critical path)";
  rec.evidence = {{"runs", runs},
                  {"split_node_edges", totals.split_edges},
                  {"cross_zone_edges", totals.cross_zone_edges},
                  {"estimated_transfer_seconds", totals.transfer_seconds},
                  {"max_critical_path_transfer_seconds", totals.worst_critical_seconds}};
  return rec;
}

}  // namespace

std::vector<Recommendation> adviseSplitDependencies(
    const std::vector<const analysis::Finding*>& findings, const config::Config& config) {
  std::vector<Recommendation> out;
  for (const auto& [dag, runs] : groupByDag<SplitDependenciesEvidence>(findings)) {
    out.push_back(adviseDag(dag, runs, config));
  }
  return out;
}

}  // namespace dagadvisor::advice
