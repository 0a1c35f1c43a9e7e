#include "advice/kinds/gpu_node_hoarding.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <tuple>

#include "advice/engine_patch.h"
#include "advice/kinds/pending_causes.h"
#include "advice/patch_yaml.h"
#include "advice/pod_owners.h"
#include "analysis/detectors/gpu_node_hoarding.h"

namespace dagadvisor::advice {
namespace {

using analysis::GpuNodeHoardingEvidence;
using nlohmann::json;
using TolerationBuild = std::function<JsonPatchVariants(const PodSpecSite&)>;

struct Totals {
  std::size_t hoarded_nodes = 0;  // hold "movable": pods matched to them
  std::int64_t free_gpus = 0;     // on the nodes with movable non-GPU pods
  std::set<std::string> blocked_pods;
  std::size_t blocked_total = 0;
  std::map<std::string, std::int64_t> cpu_by_owner_kind;
  std::set<std::string> daemonsets;
  std::set<std::pair<std::string, std::string>> daemonset_refs;  // namespace, name
  std::set<std::string> movable_owners;  // Deployments, Jobs, …: they can run elsewhere
  std::set<std::tuple<std::string, std::string, std::string>> movable_refs;  // kind, ns, name
  std::int64_t gpus_unblocked = 0;
  bool all_tainted = true;
  std::vector<std::string> daemonset_nodes;  // hold "daemonsets": moving workloads frees nothing
  model::ResourceVector daemonset_excess;    // the most any of them must give back
  analysis::DiagnosisCounts diagnosis;
  std::vector<analysis::GpuDag> gpu_dags;  // cluster-wide, as every finding carries them
  std::size_t pods_to_move = 0;            // cluster-wide, as every finding carries it
  std::size_t pods_with_room = 0;
};

bool hasNoScheduleTaint(const std::vector<model::Taint>& taints, const std::string& key) {
  return std::any_of(taints.begin(), taints.end(), [&](const model::Taint& t) {
    return t.key == key && t.effect == "NoSchedule";
  });
}

void accumulate(const GpuNodeHoardingEvidence& evidence, const std::string& taint_key,
                Totals& totals) {
  totals.diagnosis = evidence.diagnosis;
  totals.gpu_dags = evidence.gpu_dags;
  totals.pods_to_move = evidence.pods_to_move;
  totals.pods_with_room = evidence.pods_to_move_with_room;
  for (const analysis::NonGpuOwner& owner : evidence.non_gpu_owners) {
    totals.cpu_by_owner_kind[owner.kind] += owner.cpu_millis;
    const std::string name = owner.namespace_ + "/" + owner.name;
    if (owner.kind == "DaemonSet") {
      totals.daemonsets.insert(owner.kind + " " + name);
      totals.daemonset_refs.emplace(owner.namespace_, owner.name);
    } else if (evidence.hold != "daemonsets") {
      totals.movable_owners.insert(owner.kind + " " + name);
      totals.movable_refs.emplace(owner.kind, owner.namespace_, owner.name);
    }
  }
  if (evidence.hold == "daemonsets") {
    totals.daemonset_nodes.push_back(evidence.node);
    const model::ResourceVector& x = evidence.daemonset_excess;
    totals.daemonset_excess = {std::max(totals.daemonset_excess.cpu_millis, x.cpu_millis),
                               std::max(totals.daemonset_excess.memory_bytes, x.memory_bytes), 0};
    return;
  }
  totals.hoarded_nodes += evidence.hoarded() ? 1 : 0;
  totals.free_gpus += evidence.free.gpus;
  totals.gpus_unblocked += evidence.gpus_unblocked_by_moving;
  totals.blocked_total += evidence.pending_gpu_pods_total;
  for (const analysis::BlockedGpuPod& pod : evidence.pending_gpu_pods) {
    totals.blocked_pods.insert(pod.namespace_ + "/" + pod.pod);
  }
  totals.all_tainted = totals.all_tainted && hasNoScheduleTaint(evidence.taints, taint_key);
}

std::string listed(const std::set<std::string>& names) {
  std::string text;
  for (const std::string& name : names) {
    text += (text.empty() ? "" : ", ") + name;
  }
  return text;
}

std::string daemonSetText(const Totals& totals) {
  return " On " + std::to_string(totals.daemonset_nodes.size()) +
         " GPU node(s) only DaemonSets stand in the way (" +
         listed({totals.daemonset_nodes.begin(), totals.daemonset_nodes.end()}) +
         "): moving workloads frees nothing there, and a taint does not help (DaemonSets tolerate "
         "it). Lower the requests of the DaemonSets on them (" +
         listed(totals.daemonsets) + ") by up to " +
         std::to_string(totals.daemonset_excess.cpu_millis) + " mCPU and " +
         std::to_string(totals.daemonset_excess.memory_bytes >> 20) +
         " MiB per node in all, to what they use.";
}

std::string actionText(const Totals& totals, const std::string& taint_key) {
  std::string text;
  const bool movable = totals.free_gpus > 0 || !totals.movable_owners.empty();
  if (movable && totals.all_tainted) {
    text = "The GPU nodes are already tainted " + taint_key +
           ":NoSchedule, so the non-GPU pods on them tolerate it: remove broad tolerations "
           "(operator: Exists without a key) from non-GPU workloads.";
  } else if (movable) {
    text = "In this order (patches below): 1. add a toleration of " + taint_key +
           " to the pod templates of the GPU workloads only (a taint that comes first locks "
           "the pending GPU pods out; for pods an engine makes, write it where the engine "
           "defines them: docs/findings.md), and to the GPU pods pending now (kubectl patch "
           "pod: a pod keeps the spec it was made with, so without it the taint shuts them "
           "out for good); 2. add it to the DaemonSets that must keep running "
           "on GPU nodes, or they no longer land on new or replaced tainted nodes; 3. taint the "
           "GPU nodes with " +
           taint_key +
           "=present:NoSchedule (kubectl taint, or the JSON patch, which adds to the node's "
           "other taints); then restart the non-GPU Deployments/Jobs on these nodes so they "
           "reschedule onto CPU nodes (NoSchedule does not evict running pods).";
  }
  if (!totals.movable_owners.empty()) {
    text += " Workloads to move off the GPU nodes: " + listed(totals.movable_owners) + ".";
  }
  if (totals.pods_with_room < totals.pods_to_move) {
    text += " The nodes without GPUs have room for only " + std::to_string(totals.pods_with_room) +
            " of the " + std::to_string(totals.pods_to_move) +
            " pods to move (first fit of their requests into the free room): the others would "
            "pend, or take the room CPU tasks use now, until CPU nodes are added or their "
            "requests lowered (over-request). The replayed prediction shows what that costs.";
  }
  if (!totals.daemonset_nodes.empty()) {
    text += daemonSetText(totals);
  } else if (!totals.daemonsets.empty()) {
    text += " DaemonSets on these nodes (" + listed(totals.daemonsets) +
            ") would no longer land on tainted nodes: those that must run there need the "
            "toleration (step 2) and cannot move: lower their CPU/memory requests to what they "
            "use.";
  }
  // Packing tighter (MostAllocated) would pull small pods onto the most allocated nodes: these.
  if (totals.hoarded_nodes > 0) {
    text += " Keep NodeResourcesFit on LeastAllocated until the taint is in place.";
  }
  return text;
}

std::string titleText(std::size_t nodes, const Totals& totals) {
  if (totals.hoarded_nodes == 0 && !totals.daemonset_nodes.empty() && totals.free_gpus == 0) {
    return std::to_string(totals.daemonset_nodes.size()) +
           " GPU node(s) where DaemonSet requests keep pending GPU pods out";
  }
  if (totals.hoarded_nodes == 0) {
    return std::to_string(nodes) + " GPU node(s) hold non-GPU pods while " +
           std::to_string(totals.free_gpus) + " GPU(s) sit idle";
  }
  return std::to_string(totals.hoarded_nodes) +
         " GPU node(s) held by non-GPU pods that can move: moving them places " +
         std::to_string(totals.blocked_total) + " pending GPU pod(s) (" +
         std::to_string(totals.gpus_unblocked) + " GPU(s))";
}

// The pending GPU pods this finding names, by namespace: they were made before any definition
// tolerated the taint, so the taint would shut them out unless they tolerate it themselves.
std::vector<PodSelection> pendingByNamespace(const Totals& totals) {
  std::map<std::string, PodSelection> by_namespace;
  for (const std::string& key : totals.blocked_pods) {
    const auto slash = key.find('/');
    PodSelection& pods = by_namespace[key.substr(0, slash)];
    pods.namespace_ = key.substr(0, slash);
    pods.names.push_back(key.substr(slash + 1));
  }
  std::vector<PodSelection> out;
  for (auto& [ns, pods] : by_namespace) {
    out.push_back(std::move(pods));
  }
  return out;
}

// Without the snapshot's pods (findings alone), the GPU pods the evidence names: the pending
// ones, whose specs must tolerate the taint before it lands, one patch per namespace.
std::vector<GpuWorkload> pendingGpuPods(const Totals& totals) {
  std::vector<GpuWorkload> out;
  for (PodSelection& pods : pendingByNamespace(totals)) {
    GpuWorkload workload;
    workload.owner = {"", pods.namespace_, "", "namespace " + pods.namespace_};
    workload.pods = std::move(pods);
    out.push_back(std::move(workload));
  }
  return out;
}

Patch nodeTaintPatch(const std::vector<std::string>& nodes, const std::string& taint_key) {
  const TaintSpec taint{taint_key, "present", "NoSchedule"};
  Patch patch;
  patch.step = 3;
  patch.purpose = "last, taint the GPU nodes, adding to their taints";
  patch.object = {"v1", "Node", "", nodes};
  patch.variants = nodeTaintPatches(taint);
  for (const std::string& node : nodes) {
    patch.command += (patch.command.empty() ? "" : "\n") + taintCommand(node, taint);
  }
  return patch;
}

// Step 1 for a DAG: where its engine defines the runs to come (Argo: its WorkflowTemplate), and,
// for Argo, the Workflows of the runs in flight, which make their next pods from their own spec.
// The pods listed are every pod of the DAG's runs seen; the toleration is DAG-wide, so the
// DAG's CPU steps may land on GPU nodes too (the action says how to keep them off).
std::vector<Patch> dagTolerationPatches(const analysis::GpuDag& dag, const std::string& what,
                                        const TolerationBuild& tolerate,
                                        const model::ClusterSnapshot& cluster) {
  const analysis::RunScope& scope = dag.scope;
  std::vector<Patch> out;
  const PodOwner owner{scope.engine, scope.namespace_, "", scope.dag, dag.runs};
  out.push_back(podChangePatch(
      owner, PodField::kTolerations, what, tolerate,
      podsOfDag(cluster, scope.namespace_, scope.dag_selector, dag.run_selectors), 1));
  if (scope.engine == "argo" || scope.engine == "kubeflow") {
    for (const std::string& run : dag.unfinished_runs) {
      const PodOwner workflow{"", scope.namespace_, "Workflow", run};
      out.push_back(podChangePatch(
          workflow, PodField::kTolerations, what, tolerate,
          podsOf(cluster, {"argoproj.io/v1alpha1", "Workflow", scope.namespace_, {run}}), 1));
    }
  }
  return out;
}

// The objects defining live GPU pods that no GPU DAG's patch selects (Deployments, Jobs, bare
// pods), with those pods; without the snapshot's pods, the pending ones the evidence names.
std::vector<GpuWorkload> gpuPodsOutsideDags(const Totals& totals,
                                            const std::vector<Patch>& dag_patches,
                                            const model::ClusterSnapshot& cluster) {
  std::vector<GpuWorkload> out = gpuWorkloads(cluster, [&](const model::Pod& pod) {
    return std::any_of(dag_patches.begin(), dag_patches.end(),
                       [&](const Patch& patch) { return patch.pods && selects(*patch.pods, pod); });
  });
  if (out.empty() && gpuWorkloads(cluster).empty()) {  // the snapshot has no live GPU pod
    return pendingGpuPods(totals);
  }
  return out;
}

// In the order they must be applied: a taint that lands before the GPU workloads tolerate it
// locks the GPU pods out, those pending now and those the DAGs make next; DaemonSets that must
// run on GPU nodes need it too, or new and replaced GPU nodes come up without them (NoSchedule
// does not evict the running ones). Step 1 names where the GPU pods are defined: each GPU DAG's
// engine definition and runs in flight, and the owners of the other GPU pods.
std::vector<Patch> patches(const std::vector<std::string>& nodes, const Totals& totals,
                           const std::string& taint_key, const model::ClusterSnapshot& cluster) {
  const TolerationSpec toleration{taint_key, "NoSchedule"};
  const TolerationBuild tolerate = [&](const PodSpecSite& site) {
    return tolerationPatches(site.path, toleration);
  };
  const std::string what = "before any node is tainted, tolerate " + taint_key;
  std::vector<Patch> out;
  for (const analysis::GpuDag& dag : totals.gpu_dags) {
    for (Patch& patch : dagTolerationPatches(dag, what, tolerate, cluster)) {
      out.push_back(std::move(patch));
    }
  }
  for (GpuWorkload& workload : gpuPodsOutsideDags(totals, out, cluster)) {
    out.push_back(podChangePatch(workload.owner, PodField::kTolerations, what, tolerate,
                                 std::move(workload.pods), 1));
  }
  out = mergeAlike(std::move(out), what);
  for (const PodSelection& pending : pendingByNamespace(totals)) {
    out.push_back(livePodsPatch(pending, what, tolerate, 1));
  }
  for (const auto& [ns, name] : totals.daemonset_refs) {
    const PodOwner owner{"", ns, "DaemonSet", name};
    out.push_back(podChangePatch(owner, PodField::kTolerations,
                                 "before any node is tainted, tolerate " + taint_key +
                                     " (or it no longer lands on tainted nodes)",
                                 tolerate, podsOf(cluster, {"apps/v1", "DaemonSet", ns, {name}}),
                                 2));
  }
  out.push_back(nodeTaintPatch(nodes, taint_key));
  return out;
}

// The same three steps in the replay's terms, and the restart the action asks for.
// The GPU pods tolerate it exactly where step 1's patches put it (the pods they select), not
// every pod requesting GPUs: a GPU pod the patches miss is locked out by the taint, and the
// prediction must show that as the simulator applying the same patches does.
replay::ChangeSet replayChanges(const std::vector<std::string>& nodes, const Totals& totals,
                                const std::string& taint_key, const std::vector<Patch>& patches) {
  const replay::Toleration toleration{taint_key, replay::TolerationOp::kExists, "", "NoSchedule"};
  replay::ChangeSet set;
  for (const Patch& patch : patches) {
    if (patch.step == 1 && patch.pods) {
      set.changes.push_back(replay::AddToleration{replayMatchOf(*patch.pods), toleration});
    }
  }
  for (const auto& [ns, name] : totals.daemonset_refs) {
    set.changes.push_back(replay::AddToleration{{ns, {}, "DaemonSet", name}, toleration});
  }
  set.changes.push_back(
      replay::AddNodeTaint{{nodes, {}}, model::Taint{taint_key, "present", "NoSchedule"}});
  for (const auto& [kind, ns, name] : totals.movable_refs) {
    set.changes.push_back(replay::RecreatePods{{ns, {}, kind, name}});
  }
  return set;
}

}  // namespace

std::vector<Recommendation> adviseGpuNodeHoarding(
    const std::vector<const analysis::Finding*>& findings, const config::Config& config,
    const model::ClusterSnapshot& cluster) {
  if (findings.empty()) {
    return {};
  }
  const std::string& taint_key =
      config.detectors.get<analysis::GpuNodeHoardingSettings>().taint_key;
  Recommendation rec;
  rec.kind = std::string(GpuNodeHoardingEvidence::kKind);
  rec.target = "cluster/" + config.analysis.cluster;
  Totals totals;
  std::vector<std::string> node_names;  // those to taint
  json nodes = json::array();
  for (const analysis::Finding* f : findings) {
    rec.severity = std::max(rec.severity, f->severity);
    rec.instances.push_back(f->target);
    const auto& evidence = f->evidenceAs<GpuNodeHoardingEvidence>();
    accumulate(evidence, taint_key, totals);
    nodes.push_back(evidence.toJson());
    // DaemonSets tolerate a taint, so it keeps nothing off a node only they block; and a
    // second taint of one key and effect is refused.
    if (evidence.hold != "daemonsets" && !hasNoScheduleTaint(evidence.taints, taint_key)) {
      node_names.push_back(evidence.node);
    }
  }
  rec.title = titleText(findings.size(), totals);
  rec.action = actionText(totals, taint_key) + " " +
               pendingCausesText(totals.diagnosis, analysis::PendingCause::kHoarding, config);
  if (!node_names.empty()) {
    rec.patches = patches(node_names, totals, taint_key, cluster);
    rec.changes = replayChanges(node_names, totals, taint_key, rec.patches);
    rec.watched_pods.assign(totals.blocked_pods.begin(), totals.blocked_pods.end());
  }
  rec.impact_score = static_cast<double>(totals.gpus_unblocked);
  rec.impact = "moving the non-DaemonSet pods off " + std::to_string(totals.hoarded_nodes) +
               " GPU node(s) places " + std::to_string(totals.blocked_total) +
               " pending GPU pod(s) on " + std::to_string(totals.gpus_unblocked) +
               " idle GPU(s) (each pod counted once); " + std::to_string(totals.free_gpus) +
               " GPU(s) are free on the nodes with movable non-GPU pods";
  rec.evidence = {{"nodes", nodes},
                  {"free_gpus", totals.free_gpus},
                  {"pending_gpu_pods", std::vector<std::string>(totals.blocked_pods.begin(),
                                                                totals.blocked_pods.end())},
                  {"pending_gpu_pods_total", totals.blocked_total},
                  {"gpus_unblocked_by_moving", totals.gpus_unblocked},
                  {"daemonset_only_nodes", totals.daemonset_nodes},
                  {"non_gpu_cpu_millis_by_owner_kind", totals.cpu_by_owner_kind},
                  {"diagnosis", totals.diagnosis.toJson()},
                  {"pods_to_move", totals.pods_to_move},
                  {"pods_to_move_with_room", totals.pods_with_room},
                  {"related", relatedRecommendations(totals.diagnosis,
                                                     analysis::PendingCause::kHoarding, config)}};
  return {std::move(rec)};
}

}  // namespace dagadvisor::advice
