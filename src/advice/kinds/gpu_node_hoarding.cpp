#include "advice/kinds/gpu_node_hoarding.h"

#include <algorithm>
#include <map>
#include <set>

#include "advice/kinds/pending_causes.h"
#include "advice/patch_yaml.h"
#include "analysis/detectors/gpu_node_hoarding.h"

namespace dagadvisor::advice {
namespace {

using analysis::GpuNodeHoardingEvidence;
using nlohmann::json;

struct Totals {
  std::size_t hoarded_nodes = 0;  // hold "movable": pods matched to them
  std::int64_t free_gpus = 0;     // on the nodes with movable non-GPU pods
  std::set<std::string> blocked_pods;
  std::size_t blocked_total = 0;
  std::map<std::string, std::int64_t> cpu_by_owner_kind;
  std::set<std::string> daemonsets;
  std::set<std::string> movable_owners;  // Deployments, Jobs, …: they can run elsewhere
  std::int64_t gpus_unblocked = 0;
  bool all_tainted = true;
  std::vector<std::string> daemonset_nodes;  // hold "daemonsets": moving workloads frees nothing
  model::ResourceVector daemonset_excess;    // the most any of them must give back
  analysis::DiagnosisCounts diagnosis;
};

bool hasNoScheduleTaint(const std::vector<model::Taint>& taints, const std::string& key) {
  return std::any_of(taints.begin(), taints.end(), [&](const model::Taint& t) {
    return t.key == key && t.effect == "NoSchedule";
  });
}

std::vector<TaintSpec> taintsWith(const std::vector<model::Taint>& existing,
                                  const std::string& key) {
  std::vector<TaintSpec> taints;
  for (const model::Taint& t : existing) {
    taints.push_back({t.key, t.value, t.effect});
  }
  if (!hasNoScheduleTaint(existing, key)) {
    taints.push_back({key, "present", "NoSchedule"});
  }
  return taints;
}

void accumulate(const GpuNodeHoardingEvidence& evidence, const std::string& taint_key,
                Totals& totals) {
  totals.diagnosis = evidence.diagnosis;
  for (const analysis::NonGpuOwner& owner : evidence.non_gpu_owners) {
    totals.cpu_by_owner_kind[owner.kind] += owner.cpu_millis;
    const std::string name = owner.namespace_ + "/" + owner.name;
    if (owner.kind == "DaemonSet") {
      totals.daemonsets.insert(owner.kind + " " + name);
    } else if (evidence.hold != "daemonsets") {
      totals.movable_owners.insert(owner.kind + " " + name);
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
    text = "Taint the GPU nodes with " + taint_key +
           "=present:NoSchedule (patches below) and add the matching toleration to the pod "
           "templates of GPU workloads only; then restart the non-GPU Deployments/Jobs on these "
           "nodes so they reschedule onto CPU nodes (NoSchedule does not evict running pods).";
  }
  if (!totals.movable_owners.empty()) {
    text += " Workloads to move off the GPU nodes: " + listed(totals.movable_owners) + ".";
  }
  if (!totals.daemonset_nodes.empty()) {
    text += daemonSetText(totals);
  } else if (!totals.daemonsets.empty()) {
    text += " DaemonSets that must run on every node (" + listed(totals.daemonsets) +
            ") need the toleration too and cannot move: lower their CPU/memory requests to "
            "what they use.";
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

}  // namespace

std::vector<Recommendation> adviseGpuNodeHoarding(
    const std::vector<const analysis::Finding*>& findings, const config::Config& config) {
  if (findings.empty()) {
    return {};
  }
  const std::string& taint_key =
      config.detectors.get<analysis::GpuNodeHoardingSettings>().taint_key;
  Recommendation rec;
  rec.kind = std::string(GpuNodeHoardingEvidence::kKind);
  rec.target = "cluster/" + config.analysis.cluster;
  Totals totals;
  std::vector<std::pair<std::string, std::string>> docs;
  json nodes = json::array();
  for (const analysis::Finding* f : findings) {
    rec.severity = std::max(rec.severity, f->severity);
    rec.instances.push_back(f->target);
    const auto& evidence = f->evidenceAs<GpuNodeHoardingEvidence>();
    accumulate(evidence, taint_key, totals);
    nodes.push_back(evidence.toJson());
    if (evidence.hold == "daemonsets") {
      continue;  // a taint keeps nothing off: DaemonSets tolerate it
    }
    docs.emplace_back("kubectl patch node " + evidence.node + " --patch-file <this document>",
                      nodeTaintsPatch(evidence.node, taintsWith(evidence.taints, taint_key)));
  }
  if (!docs.empty()) {
    docs.emplace_back("merge into the pod template spec of every GPU workload",
                      tolerationPatch(taint_key, "NoSchedule"));
  }
  rec.title = titleText(findings.size(), totals);
  rec.action = actionText(totals, taint_key) + " " +
               pendingCausesText(totals.diagnosis, analysis::PendingCause::kHoarding, config);
  rec.patch_yaml = joinDocuments(docs);
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
                  {"related", relatedRecommendations(totals.diagnosis,
                                                     analysis::PendingCause::kHoarding, config)}};
  return {std::move(rec)};
}

}  // namespace dagadvisor::advice
