#include "advice/kinds/critical_path_priority.h"

#include <algorithm>
#include <map>
#include <set>

#include "advice/engine_patch.h"
#include "advice/kinds/finding_groups.h"
#include "advice/patch_yaml.h"
#include "analysis/detectors/critical_path_priority.h"

namespace dagadvisor::advice {
namespace {

using analysis::CriticalPathPriorityEvidence;
using analysis::PreemptionExposure;
using nlohmann::json;

constexpr const char* kRule =
    "preemption only when every pod it could evict on the nodes the critical tasks fit is a "
    "batch pod without GPUs that has run no longer than the critical tasks have waited";

// The policy all runs allow: one class serves them all, so one run's unsafe exposure decides.
bool preemptionAcceptable(const FindingList& findings) {
  return std::all_of(findings.begin(), findings.end(), [](const analysis::Finding* f) {
    return f->evidenceAs<CriticalPathPriorityEvidence>().preemption.acceptable;
  });
}

// The run whose critical tasks could preempt the most pods: the exposure the advice shows.
const PreemptionExposure& widestExposure(const FindingList& findings) {
  const PreemptionExposure* widest = nullptr;
  for (const analysis::Finding* f : findings) {
    const auto& e = f->evidenceAs<CriticalPathPriorityEvidence>().preemption;
    if (widest == nullptr || e.pods > widest->pods) {
      widest = &e;
    }
  }
  return *widest;
}

// The victims' classes with their values: the evidence the choice rests on.
std::string classWords(const PreemptionExposure& e) {
  std::string out;
  for (const PreemptionExposure::ClassCount& k : e.by_class) {
    out += (out.empty() ? "" : ", ") + (k.priority_class.empty() ? "no class" : k.priority_class) +
           " at " + (k.value ? std::to_string(*k.value) : "an unknown value") + ": " +
           std::to_string(k.pods) + " pod(s)";
  }
  return out.empty() ? "" : " (by class: " + out + ")";
}

std::string valuesWords(const PreemptionExposure& e) {
  if (!e.values_known) {
    return std::to_string(e.known_lower_pods) + " without a PriorityClass, at 0; " +
           std::to_string(e.unknown_priority_pods) +
           " of a named class whose value was not checked: kube-state-metrics does not export "
           "PriorityClass values and the Kubernetes API source (sources.kubernetes) is off";
  }
  return std::to_string(e.known_lower_pods) + " known to be lower by their PriorityClass values" +
         ", " + std::to_string(e.unknown_priority_pods) + " of a class the API did not list; " +
         std::to_string(e.protected_pods) + " more at or above " +
         std::to_string(e.proposed_value) + " that it cannot preempt";
}

std::string exposureWords(const PreemptionExposure& e) {
  return std::to_string(e.pods) + " pod(s) that may be below " + std::to_string(e.proposed_value) +
         " (" + valuesWords(e) + ")" + classWords(e) + " on the " + std::to_string(e.nodes) +
         " node(s) a critical task may use: " + std::to_string(e.gpu_pods) + " holding GPUs, " +
         std::to_string(e.online_pods) + " pod(s) of online services, " +
         std::to_string(e.not_batch_pods) + " not batch work, " +
         std::to_string(e.long_running_pods) +
         " running longer than the critical tasks have waited";
}

// Step 1 creates the class, step 2 gives it to the critical tasks' pods (per namespace) as
// the engine submits them.
std::vector<Patch> patches(const analysis::CriticalPathPrioritySettings& params, bool preempt,
                           const std::set<std::string>& pods) {
  Patch create;
  create.purpose = "create the PriorityClass " + params.priority_class;
  create.object = {"scheduling.k8s.io/v1", "PriorityClass", "", {params.priority_class}};
  create.type = PatchType::kCreate;
  create.document =
      priorityClassManifest(params.priority_class, params.priority_value,
                            "Tasks on the critical path of a DAG run (dagadvisor)", preempt);
  create.command = "kubectl apply -f <this document>";
  std::map<std::string, std::vector<std::string>> by_namespace;
  for (const std::string& key : pods) {
    const auto slash = key.find('/');
    by_namespace[key.substr(0, slash)].push_back(key.substr(slash + 1));
  }
  std::vector<Patch> out{std::move(create)};
  for (const auto& [ns, names] : by_namespace) {
    Patch set;
    set.step = 2;
    set.purpose = "set in the pod spec of critical-path tasks when the engine submits them";
    set.object = {"v1", "Pod", ns, names};
    set.variants = setFieldPatches({{"spec"}}, "priorityClassName", params.priority_class);
    set.command =
        "kubectl patch --local -f <pod manifest> --type=json --patch-file <this document> -o yaml";
    set.pods = PodSelection{ns, {}, names};
    set.pod_variants = set.variants;
    out.push_back(std::move(set));
  }
  return out;
}

}  // namespace

// One root cause for the whole cluster: nothing raises critical-path tasks above the rest.
std::vector<Recommendation> adviseCriticalPathPriority(const FindingList& findings,
                                                       const config::Config& config,
                                                       const model::ClusterSnapshot& /*cluster*/) {
  if (findings.empty()) {
    return {};
  }
  const auto& params = config.detectors.get<analysis::CriticalPathPrioritySettings>();
  Recommendation rec;
  rec.kind = std::string(CriticalPathPriorityEvidence::kKind);
  rec.target = "cluster/" + config.analysis.cluster;
  const json runs = cover(rec, findings);
  std::set<std::string> pods;
  std::vector<std::string> engines;
  double waiting = 0;
  for (const analysis::Finding* f : byImpact(findings)) {  // cover's order: the same sum
    const auto& evidence = f->evidenceAs<CriticalPathPriorityEvidence>();
    waiting += evidence.critical_waiting_seconds;
    engines.push_back(evidence.scope.engine);
    for (const analysis::PendingPathTask& task : evidence.critical_tasks) {
      pods.insert(task.namespace_ + "/" + task.pod);
    }
  }
  rec.title = std::to_string(pods.size()) + " critical-path task(s) in " +
              std::to_string(findings.size()) +
              " run(s) pend at the same priority as slack-rich work";
  const bool preempt = preemptionAcceptable(findings);
  const std::string policy = preempt ? "PreemptLowerPriority" : "Never";
  const PreemptionExposure& exposure = widestExposure(findings);
  rec.action =
      "Create the PriorityClass " + params.priority_class + " with preemptionPolicy: " + policy +
      " (first document): " +
      (preempt ? "what it could preempt is restartable batch work that has run less than the "
                 "critical tasks have waited (" +
                     exposureWords(exposure) + ")"
               : "it puts the critical tasks first in the scheduling queue and evicts nothing, "
                 "because preempting would hit " +
                     exposureWords(exposure)) +
      " (rule: " + kRule +
      "). Give it to the tasks on each run's critical path: the workflow "
      "engine sets priorityClassName (second document) on a task whose slack is zero when it "
      "submits the pod (dynamic priority). priorityClassName cannot change on an existing pod, "
      "so the pending pods listed in the evidence take it only when re-created (delete them where "
      "their controller or the engine's retry re-creates them). " +
      engineNotes(engines, PodField::kPriorityClass);
  rec.patches = patches(params, preempt, pods);
  // The engine sets the class on the critical tasks it submits: here, those that pended (an
  // empty list of names would match every pod).
  if (!pods.empty()) {
    rec.changes.changes.push_back(
        replay::SetPriority{{"", {}, "", "", std::vector<std::string>(pods.begin(), pods.end())},
                            params.priority_class,
                            params.priority_value,
                            preempt});
    rec.watched_pods.assign(pods.begin(), pods.end());
  }
  rec.impact_score = waiting;
  rec.impact = "the critical chains have waited " + formatSeconds(waiting) +
               " in all; each second a critical task waits adds a second to its run's makespan";
  rec.evidence = {{"runs", runs},
                  {"pending_critical_pods", std::vector<std::string>(pods.begin(), pods.end())},
                  {"critical_waiting_seconds", waiting},
                  {"preemption_policy", policy},
                  {"preemption_rule", kRule},
                  {"preemptible", exposure.toJson()}};
  return {std::move(rec)};
}

}  // namespace dagadvisor::advice
