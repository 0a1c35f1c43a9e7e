#include "advice/kinds/gpu_node_hoarding.h"

#include <algorithm>
#include <map>
#include <set>

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
  std::set<std::string> movable_owners;  // Deployments, Jobs, …: they can run elsewhere
  std::int64_t gpus_unblocked = 0;
  bool all_tainted = true;
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
    text = "Taint the GPU nodes with " + taint_key +
           "=present:NoSchedule (patches below) and add the matching toleration to the pod "
           "templates of GPU workloads only; then restart the non-GPU Deployments/Jobs on these "
           "nodes so they reschedule onto CPU nodes (NoSchedule does not evict running pods).";
  }
  if (!totals.movable_owners.empty()) {
    text += " Workloads to move off the GPU nodes: " + listed(totals.movable_owners) + ".";
  }
  if (!totals.daemonsets.empty()) {
    text += " DaemonSets that must run on every node (" + listed(totals.daemonsets) +
            ") need the toleration too and cannot move: lower their CPU/memory requests to "
            "what they use.";
  }
  return text;
}

std::string titleText(std::size_t nodes, const Totals& totals) {
  return std::to_string(nodes) +
         " GPU node(s) held by non-GPU pods: " + std::to_string(totals.free_gpus) +
         " GPU(s) idle while " + std::to_string(totals.blocked_pods.size()) + " GPU pod(s) pend";
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
    docs.emplace_back("kubectl patch node " + evidence.node + " --patch-file <this document>",
                      nodeTaintsPatch(evidence.node, taintsWith(evidence.taints, taint_key)));
  }
  docs.emplace_back("merge into the pod template spec of every GPU workload",
                    tolerationPatch(taint_key, "NoSchedule"));
  rec.title = titleText(findings.size(), totals);
  rec.action = actionText(totals, taint_key);
  rec.patch_yaml = joinDocuments(docs);
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
