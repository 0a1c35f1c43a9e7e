#include "advice/kinds/dag_stacking.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "advice/engine_patch.h"
#include "advice/kinds/finding_groups.h"
#include "advice/patch_yaml.h"
#include "advice/pod_owners.h"
#include "analysis/detectors/dag_stacking.h"

namespace dagadvisor::advice {
namespace {

using analysis::DagStackingEvidence;
using nlohmann::json;

constexpr const char* kHostnameKey = "kubernetes.io/hostname";

struct DagTotals {
  std::int64_t stacked_tasks = 0;
  std::int64_t max_tasks_on_node = 0;
  std::set<std::string> nodes;
  std::set<std::string> idle_peers;
};

void accumulate(const DagStackingEvidence& evidence, DagTotals& totals) {
  totals.stacked_tasks += static_cast<std::int64_t>(evidence.stacked_tasks);
  for (const analysis::StackedNode& stack : evidence.stacked_nodes) {
    totals.nodes.insert(stack.node);
    totals.max_tasks_on_node =
        std::max(totals.max_tasks_on_node, static_cast<std::int64_t>(stack.tasks()));
    for (const analysis::StackIdlePeer& peer : stack.idle_peers) {
      totals.idle_peers.insert(peer.node);
    }
  }
}

std::string actionText(const std::string& dag, const std::string& keys, bool per_run) {
  return "Add a preferred pod anti-affinity (weight 100, topologyKey " + std::string(kHostnameKey) +
         ") on " + keys + (per_run ? " (the run's own labels; set them per run)" : "") +
         " to the pod template of every task of " + dag +
         ", so that the scheduler spreads the DAG's concurrent tasks over the idle nodes of the "
         "pool instead of piling them on one. Preferred, not required: when every node is "
         "busy the tasks still share one. For data-locality-sensitive tasks, combine it with a "
         "zone affinity (see split-dependencies) rather than a node affinity.";
}

/// The replay's edit: the anti-affinity the pods get, each run's pods repelled by their own run
/// (per-run labels) or by the DAG's pods (labels every run shares).
void addReplayChanges(Recommendation& rec, const FindingList& findings, const PodSelection& pods,
                      bool per_run, int weight) {
  const auto change = [&](const PodSelection& selected) {
    const replay::PreferredPodAffinityTerm term{
        weight, true, replay::LabelSelector::equals(selected.match_labels), kHostnameKey};
    rec.changes.changes.push_back(replay::AddPreferredPodAffinity{replayMatchOf(selected), term});
  };
  if (!per_run) {
    change(pods);
    return;
  }
  for (const analysis::Finding* f : findings) {
    const analysis::RunScope& scope = f->evidenceAs<DagStackingEvidence>().scope;
    change(PodSelection{scope.namespace_, labelsOf(scope.selector), {}});
  }
}

Recommendation adviseDag(const std::string& dag, const FindingList& findings,
                         const config::Config& config) {
  DagTotals totals;
  for (const analysis::Finding* f : findings) {
    accumulate(f->evidenceAs<DagStackingEvidence>(), totals);
  }
  Recommendation rec;
  rec.kind = std::string(DagStackingEvidence::kKind);
  rec.target = "dag/" + dag;
  json runs = cover(rec, findings);
  PodAffinitySpec spec;
  // Every run of the DAG where its engine marks the DAG on the pods, else the run's own pods.
  const analysis::RunScope& latest = findings.back()->evidenceAs<DagStackingEvidence>().scope;
  spec.match_labels = labelsOf(latest.dag_selector);
  const bool per_run = spec.match_labels.empty() && !latest.selector.empty();
  if (per_run) {
    spec.match_labels = labelsOf(latest.selector);
  }
  if (spec.match_labels.empty()) {
    spec.match_labels = {{config.workflow_labels.dag_label, latest.dag}};
  }
  spec.topology_key = kHostnameKey;
  spec.anti = true;
  const std::string keys = listKeys(spec.match_labels);
  // The pods it lands on, with the values they carry: per run, those of the latest run.
  const PodSelection pods{latest.namespace_, spec.match_labels, {}};
  const PodAffinitySpec on_pods = spec;
  bool templated = false;
  if (per_run) {
    std::tie(spec.match_labels, templated) = perRunLabels(latest.engine, spec.match_labels);
  }
  PodOwner owner{latest.engine, latest.namespace_, "", latest.dag};
  for (const analysis::Finding* f : findings) {
    owner.runs.push_back(f->evidenceAs<DagStackingEvidence>().scope.run);
  }
  rec.patches.push_back(podChangePatch(
      owner, PodField::kAffinity,
      "add a preferred pod anti-affinity on " + keys +
          (per_run && !templated ? "; set " + keys + " per run" : ""),
      [&](const PodSpecSite& site) {
        return podAffinityPatches(site.path, site.object.kind == "Pod" ? on_pods : spec);
      },
      pods));
  addReplayChanges(rec, findings, pods, per_run, spec.weight);
  rec.title = dag + ": up to " + std::to_string(totals.max_tasks_on_node) +
              " concurrent tasks of one run on one busy node while " +
              std::to_string(totals.idle_peers.size()) + " node(s) of its pool have CPU free";
  rec.action =
      actionText(dag, keys, per_run) + " " + engineNotes({latest.engine}, PodField::kAffinity);
  rec.impact_score = static_cast<double>(totals.stacked_tasks);
  rec.impact = std::to_string(totals.stacked_tasks) + " stacked task(s) in " +
               std::to_string(findings.size()) + " run(s) could spread over " +
               std::to_string(totals.idle_peers.size()) + " idle node(s)";
  rec.evidence = {
      {"runs", runs},
      {"stacked_tasks", totals.stacked_tasks},
      {"stacked_nodes", std::vector<std::string>(totals.nodes.begin(), totals.nodes.end())},
      {"idle_peers", std::vector<std::string>(totals.idle_peers.begin(), totals.idle_peers.end())}};
  return rec;
}

}  // namespace

std::vector<Recommendation> adviseDagStacking(const std::vector<const analysis::Finding*>& findings,
                                              const config::Config& config,
                                              const model::ClusterSnapshot& /*cluster*/) {
  std::vector<Recommendation> out;
  for (const auto& [dag, runs] : groupByDag<DagStackingEvidence>(findings)) {
    out.push_back(adviseDag(dag, runs, config));
  }
  return out;
}

}  // namespace dagadvisor::advice
