#include "advice/kinds/split_dependencies.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

#include "advice/engine_patch.h"
#include "advice/kinds/finding_groups.h"
#include "advice/patch_yaml.h"
#include "advice/pod_owners.h"
#include "analysis/detectors/split_dependencies.h"

namespace dagadvisor::advice {
namespace {

using analysis::SplitDependenciesEvidence;
using analysis::TransferBasis;
using nlohmann::json;

struct DagTotals {
  std::int64_t split_edges = 0;
  std::int64_t cross_zone_edges = 0;
  std::int64_t sequential_edges = 0;
  double modelled_seconds = 0;
  double measured_seconds = 0;
  double worst_critical_modelled_seconds = 0;
  std::size_t measured_runs = 0;  // runs with a measured cross-zone task
};

DagTotals sum(const FindingList& runs) {
  DagTotals totals;
  for (const analysis::Finding* f : runs) {
    const auto& e = f->evidenceAs<SplitDependenciesEvidence>();
    totals.split_edges += static_cast<std::int64_t>(e.splitNodeEdges());
    totals.cross_zone_edges += static_cast<std::int64_t>(e.cross_zone_edges);
    totals.sequential_edges += static_cast<std::int64_t>(e.sequential_split_edges);
    totals.modelled_seconds += e.modelled_transfer_seconds;
    totals.measured_seconds += e.measured_transfer_seconds;
    totals.worst_critical_modelled_seconds =
        std::max(totals.worst_critical_modelled_seconds, e.critical_path_modelled_transfer_seconds);
    totals.measured_runs += e.basis != TransferBasis::kModelled ? 1 : 0;
  }
  return totals;
}

std::string basisOf(const DagTotals& totals, std::size_t runs) {
  if (totals.measured_runs == 0) {
    return "modelled";
  }
  return totals.measured_runs == runs ? "measured" : "partly_measured";
}

// The value a task's pod template puts in its zone affinity: one zone per run, chosen before
// the run's first pod exists, in the engine's own templating.
std::string zoneValue(const std::string& engine) {
  if (engine == "argo") {
    return "{{workflow.parameters.zone}}";
  }
  return "ZONE-CHOSEN-FOR-THE-RUN";
}

// Where each engine lets a run choose its zone and carry it to every task's pod.
std::string engineText(const std::string& engine) {
  if (engine == "argo") {
    return "Argo: add a workflow parameter `zone` (spec.arguments.parameters), set when the "
           "run is submitted (e.g. the zone with the most free capacity, or one derived from "
           "{{workflow.name}}), and put the fragment in every template's `affinity` "
           "(templates[].affinity); Argo substitutes {{workflow.parameters.zone}} per run.";
  }
  if (engine == "tekton") {
    return "Tekton: either set `coschedule: pipelineruns` in the feature-flags ConfigMap (the "
           "affinity assistant then places every TaskRun pod of a PipelineRun on one node: all "
           "edges covered, but a run's concurrent tasks must fit that node), or give each "
           "PipelineRun the fragment in spec.taskRunTemplate.podTemplate.affinity (or "
           "taskRunSpecs[].podTemplate) with its zone written in by whatever creates the "
           "PipelineRun (a TriggerTemplate substitutes $(tt.params.zone) there).";
  }
  if (engine == "airflow") {
    return "Airflow: set the affinity in a `pod_mutation_hook` (airflow_local_settings.py) that "
           "picks one zone per run_id (e.g. a stable hash of run_id over the zones) and writes "
           "it into the pod's affinity, so every task pod of the run gets the same zone; "
           "per-task static values go in KubernetesPodOperator(affinity=...) or "
           "executor_config pod_override.";
  }
  return "Put the fragment in every task's pod template with the zone chosen when the run is "
         "created (the submitter writes it, as it writes the run label).";
}

std::string actionText(const std::string& dag, const std::string& engine, const DagTotals& totals,
                       const config::Config& config) {
  return "Run every task of " + dag + " in one zone per run: a preferred node affinity to " +
         config.cluster_labels.zone +
         " with a value chosen once per run (first fragment). This covers every edge, also the " +
         std::to_string(totals.sequential_edges) + " of " + std::to_string(totals.split_edges) +
         " split edge(s) whose parent had finished before the child was scheduled, which no pod "
         "affinity can cover (the scheduler does not see finished pods). " +
         engineText(engine) +
         " The second fragment (pod affinity with matchLabelKeys on the run label, Kubernetes "
         "1.29+ with the MatchLabelKeysInPodAffinity feature, on by default from 1.31) is "
         "static and covers only tasks that run at the same time (siblings). Both are "
         "preferred, not required: a full zone still accepts the pod elsewhere. Add the terms "
         "to any affinity the templates already have (the lists replace, they do not merge).";
}

std::string impactText(const DagTotals& totals) {
  std::string measured =
      totals.measured_runs == 0
          ? "transfer cost unmeasured (no task has 3 finished runs in zone and 3 across zones)"
          : "measured: " + formatSeconds(totals.measured_seconds) + " of slowdown in " +
                std::to_string(totals.measured_runs) +
                " run(s), from the same tasks' run times in zone against across zones";
  return measured +
         "; modelled (analysis.transfer, not measured): " + formatSeconds(totals.modelled_seconds) +
         " of transfer in all, up to " + formatSeconds(totals.worst_critical_modelled_seconds) +
         " on a run's critical path";
}

std::string runKeyOf(const analysis::RunScope& scope, const config::Config& config) {
  const Labels run_labels = labelsOf(scope.selector);
  return run_labels.empty() ? config.workflow_labels.run_label : run_labels.front().first;
}

/// The replay's edit: the static sibling affinity (second patch), each pod's term selecting its
/// own run through matchLabelKeys. The zone per run (first patch) needs a value the user
/// chooses per run, so it is not replayed, as the simulator does not apply it either.
void addReplayChanges(Recommendation& rec, const std::optional<PodSelection>& pods,
                      const PodAffinitySpec& siblings) {
  if (!pods) {
    return;
  }
  const replay::PreferredPodAffinityTerm term{siblings.weight, false,
                                              replay::LabelSelector::equals(siblings.match_labels),
                                              siblings.topology_key};
  rec.changes.changes.push_back(
      replay::AddPreferredPodAffinity{replayMatchOf(*pods), term, siblings.match_label_keys});
}

Recommendation adviseDag(const std::string& dag, const FindingList& findings,
                         const config::Config& config, const model::ClusterSnapshot& cluster) {
  const auto& latest = findings.back()->evidenceAs<SplitDependenciesEvidence>();
  const DagTotals totals = sum(findings);
  Recommendation rec;
  rec.kind = std::string(SplitDependenciesEvidence::kKind);
  rec.target = "dag/" + dag;
  json runs = cover(rec, findings);
  const std::string& zone_label = config.cluster_labels.zone;
  const std::string run_key = runKeyOf(latest.scope, config);
  PodOwner owner{latest.scope.engine, latest.scope.namespace_, "", latest.scope.dag};
  std::vector<Labels> run_selectors;
  for (const analysis::Finding* f : findings) {
    const analysis::RunScope& scope = f->evidenceAs<SplitDependenciesEvidence>().scope;
    owner.runs.push_back(scope.run);
    run_selectors.push_back(labelsOf(scope.selector));
  }
  const auto pods = podsOfDag(cluster, latest.scope.namespace_, labelsOf(latest.scope.dag_selector),
                              run_selectors);
  PodAffinitySpec siblings;  // matchLabelKeys adds "run_key In (the pod's own value)"
  siblings.match_labels = labelsOf(latest.scope.dag_selector);
  siblings.match_label_keys = {run_key};
  siblings.topology_key = zone_label;
  siblings.weight = 50;
  // The zone is chosen per run: an engine that templates it (Argo) takes its expression, a Pod
  // the zone itself, which only the user (or the submitter) knows.
  Patch zone = podChangePatch(
      owner, PodField::kAffinity,
      "one zone per run (covers every edge): add a preferred node affinity to every task of " +
          dag + ", the value chosen per run",
      [&](const PodSpecSite& site) {
        const std::string engine = site.object.kind == "Pod" ? "" : latest.scope.engine;
        return nodePreferencePatches(site.path, {zone_label, {zoneValue(engine)}, 100});
      },
      pods);
  zone.needs_value = "zone";
  rec.patches.push_back(std::move(zone));
  rec.patches.push_back(podChangePatch(
      owner, PodField::kAffinity,
      "concurrent tasks of one run only (matchLabelKeys takes " + run_key +
          " from each pod): static, for every task of " + dag,
      [&](const PodSpecSite& site) { return podAffinityPatches(site.path, siblings); }, pods));
  addReplayChanges(rec, pods, siblings);
  rec.gain_in_hand_offs = true;
  rec.title = dag + ": " + std::to_string(totals.split_edges) +
              " dependency edge(s) split across nodes (" + std::to_string(totals.cross_zone_edges) +
              " across zones) in " + std::to_string(findings.size()) + " run(s); transfer " +
              basisOf(totals, findings.size());
  rec.action = actionText(dag, latest.scope.engine, totals, config);
  rec.impact_score = totals.measured_runs > 0 ? totals.measured_seconds : totals.modelled_seconds;
  rec.impact = impactText(totals);
  rec.evidence = {
      {"runs", runs},
      {"split_node_edges", totals.split_edges},
      {"cross_zone_edges", totals.cross_zone_edges},
      {"sequential_split_edges", totals.sequential_edges},
      {"transfer_basis", basisOf(totals, findings.size())},
      {"measured_transfer_seconds", totals.measured_seconds},
      {"modelled_transfer_seconds", totals.modelled_seconds},
      {"max_critical_path_modelled_transfer_seconds", totals.worst_critical_modelled_seconds}};
  return rec;
}

}  // namespace

std::vector<Recommendation> adviseSplitDependencies(
    const std::vector<const analysis::Finding*>& findings, const config::Config& config,
    const model::ClusterSnapshot& cluster) {
  std::vector<Recommendation> out;
  for (const auto& [dag, runs] : groupByDag<SplitDependenciesEvidence>(findings)) {
    out.push_back(adviseDag(dag, runs, config, cluster));
  }
  return out;
}

}  // namespace dagadvisor::advice
