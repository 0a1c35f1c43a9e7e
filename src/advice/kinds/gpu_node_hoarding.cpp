#include "advice/kinds/gpu_node_hoarding.h"

#include <algorithm>
#include <map>
#include <set>

#include "advice/engine_patch.h"
#include "advice/patch_yaml.h"
#include "analysis/detectors/gpu_node_hoarding.h"

namespace dagadvisor::advice {
namespace {

using analysis::GpuNodeHoardingEvidence;
using nlohmann::json;

struct Totals {
  std::int64_t free_gpus = 0;
  std::set<std::string> blocked_pods;
  std::map<std::string, std::int64_t> cpu_by_owner_kind;
  std::set<std::string> daemonsets;
  std::set<std::pair<std::string, std::string>> daemonset_refs;  // namespace, name
  std::set<std::string> movable_owners;  // Deployments, Jobs, …: they can run elsewhere
  std::int64_t gpus_unblocked = 0;
  bool all_tainted = true;
};

bool hasNoScheduleTaint(const std::vector<model::Taint>& taints, const std::string& key) {
  return std::any_of(taints.begin(), taints.end(), [&](const model::Taint& t) {
    return t.key == key && t.effect == "NoSchedule";
  });
}

void accumulate(const GpuNodeHoardingEvidence& evidence, const std::string& taint_key,
                Totals& totals) {
  totals.free_gpus += evidence.free.gpus;
  totals.gpus_unblocked += evidence.gpus_unblocked_by_moving;
  for (const analysis::BlockedGpuPod& pod : evidence.pending_gpu_pods) {
    totals.blocked_pods.insert(pod.namespace_ + "/" + pod.pod);
  }
  for (const analysis::NonGpuOwner& owner : evidence.non_gpu_owners) {
    totals.cpu_by_owner_kind[owner.kind] += owner.cpu_millis;
    const std::string name = owner.namespace_ + "/" + owner.name;
    (owner.kind == "DaemonSet" ? totals.daemonsets : totals.movable_owners)
        .insert(owner.kind + " " + name);
    if (owner.kind == "DaemonSet") {
      totals.daemonset_refs.emplace(owner.namespace_, owner.name);
    }
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

std::string actionText(const Totals& totals, const std::string& taint_key) {
  std::string text;
  if (totals.all_tainted) {
    text = "The GPU nodes are already tainted " + taint_key +
           ":NoSchedule, so the non-GPU pods on them tolerate it: remove broad tolerations "
           "(operator: Exists without a key) from non-GPU workloads.";
  } else {
    text = "In this order (patches below): 1. add a toleration of " + taint_key +
           " to the pod templates of the GPU workloads only (a taint that comes first locks "
           "the pending GPU pods out; for pods an engine makes, write it where the engine "
           "defines them: docs/findings.md); 2. add it to the DaemonSets that must keep running "
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
  if (!totals.daemonsets.empty()) {
    text += " DaemonSets on these nodes (" + listed(totals.daemonsets) +
            ") would no longer land on tainted nodes: those that must run there need the "
            "toleration (step 2) and cannot move: lower their CPU/memory requests to what they "
            "use.";
  }
  return text;
}

std::string titleText(std::size_t nodes, const Totals& totals) {
  return std::to_string(nodes) +
         " GPU node(s) held by non-GPU pods: " + std::to_string(totals.free_gpus) +
         " GPU(s) idle while " + std::to_string(totals.blocked_pods.size()) + " GPU pod(s) pend";
}

// In the order they must be applied: a taint that lands before the GPU workloads tolerate it
// locks the pending GPU pods out; DaemonSets that must run on GPU nodes need it too, or new and
// replaced GPU nodes come up without them (NoSchedule does not evict the running ones).
CommentedDocs patchDocs(const std::vector<std::string>& nodes, const Totals& totals,
                        const std::string& taint_key) {
  const TolerationSpec toleration{taint_key, "NoSchedule"};
  const auto tolerate = [&](const PodSpecSite& site) {
    return tolerationPatches(site.path, toleration);
  };
  CommentedDocs docs =
      podChangeDocs({"", "<namespace>", "Deployment", "<gpu-workload>"}, PodField::kTolerations,
                    "tolerate " + taint_key, tolerate, "step 1, before any taint: ");
  for (const auto& [ns, name] : totals.daemonset_refs) {
    const CommentedDocs ds =
        podChangeDocs({"", ns, "DaemonSet", name}, PodField::kTolerations,
                      "tolerate " + taint_key + " (or it no longer lands on tainted nodes)",
                      tolerate, "step 2, before any taint: ");
    docs.insert(docs.end(), ds.begin(), ds.end());
  }
  const TaintSpec taint{taint_key, "present", "NoSchedule"};
  std::string commands;
  for (const std::string& node : nodes) {
    commands += "\n  " + taintCommand(node, taint);
  }
  const std::vector<std::string> variants = nodeTaintPatches(taint);
  for (std::size_t i = 0; i < variants.size(); ++i) {
    docs.emplace_back(
        "step 3, last: taint the GPU nodes, adding to their taints (kubectl patch node "
        "<node> --type=json --patch-file <this document>), variant " +
            std::to_string(i + 1) + " of " + std::to_string(variants.size()) +
            ": apply the first one kubectl accepts; or run" +
            (i == 0 ? commands : std::string(" the kubectl taint commands above")),
        variants[i]);
  }
  return docs;
}

}  // namespace

std::vector<Recommendation> adviseGpuNodeHoarding(
    const std::vector<const analysis::Finding*>& findings, const config::Config& config) {
  if (findings.empty()) {
    return {};
  }
  const std::string& taint_key = config.detectors.gpu_node_hoarding.taint_key;
  Recommendation rec;
  rec.kind = std::string(GpuNodeHoardingEvidence::kKind);
  rec.target = "cluster/" + config.analysis.cluster;
  Totals totals;
  std::vector<std::string> node_names;
  json nodes = json::array();
  for (const analysis::Finding* f : findings) {
    rec.severity = std::max(rec.severity, f->severity);
    rec.instances.push_back(f->target);
    const auto& evidence = f->evidenceAs<GpuNodeHoardingEvidence>();
    accumulate(evidence, taint_key, totals);
    nodes.push_back(evidence.toJson());
    if (!hasNoScheduleTaint(evidence.taints, taint_key)) {
      node_names.push_back(evidence.node);  // a second taint of one key and effect is refused
    }
  }
  rec.title = titleText(findings.size(), totals);
  rec.action = actionText(totals, taint_key);
  rec.patch_yaml =
      node_names.empty() ? "" : joinDocuments(patchDocs(node_names, totals, taint_key));
  rec.impact_score = static_cast<double>(totals.free_gpus);
  rec.impact = "up to " + std::to_string(totals.free_gpus) + " idle GPU(s) on " +
               std::to_string(findings.size()) + " node(s) become usable by " +
               std::to_string(totals.blocked_pods.size()) +
               " pending GPU pod(s); moving the non-DaemonSet pods alone unblocks " +
               std::to_string(totals.gpus_unblocked) + " GPU(s)";
  rec.evidence = {{"nodes", nodes},
                  {"free_gpus", totals.free_gpus},
                  {"pending_gpu_pods", std::vector<std::string>(totals.blocked_pods.begin(),
                                                                totals.blocked_pods.end())},
                  {"gpus_unblocked_by_moving", totals.gpus_unblocked},
                  {"non_gpu_cpu_millis_by_owner_kind", totals.cpu_by_owner_kind}};
  return {std::move(rec)};
}

}  // namespace dagadvisor::advice
