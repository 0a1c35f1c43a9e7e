#include "advice/kinds/critical_path_priority.h"

#include <set>

#include "advice/engine_patch.h"
#include "advice/kinds/finding_groups.h"
#include "advice/patch_yaml.h"
#include "analysis/detectors/critical_path_priority.h"

namespace dagadvisor::advice {

using analysis::CriticalPathPriorityEvidence;
using nlohmann::json;

// One root cause for the whole cluster: nothing raises critical-path tasks above the rest.
std::vector<Recommendation> adviseCriticalPathPriority(const FindingList& findings,
                                                       const config::Config& config) {
  if (findings.empty()) {
    return {};
  }
  const auto& params = config.detectors.critical_path_priority;
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
  rec.action =
      "Create the PriorityClass " + params.priority_class +
      " (first document; preemptionPolicy: Never, so it moves them ahead in the scheduling queue "
      "without evicting anything: the evidence does not show what would be preempted) and give "
      "it to the tasks on each run's critical path: the workflow "
      "engine sets priorityClassName (second document) on a task whose slack is zero when it "
      "submits the pod (dynamic priority). priorityClassName cannot change on an existing pod, "
      "so the pending pods listed in the evidence take it only when re-created (delete them where "
      "their controller or the engine's retry re-creates them). " +
      engineNotes(engines, PodField::kPriorityClass);
  rec.patch_yaml = joinDocuments(
      {{"kubectl apply -f <this document>",
        priorityClassManifest(params.priority_class, params.priority_value,
                              "Tasks on the critical path of a DAG run (dagadvisor)")},
       {"set in the pod spec of critical-path tasks when the engine submits them (kubectl patch "
        "--local -f <pod manifest> --type=json --patch-file <this document> -o yaml)",
        setFieldPatches({{"spec"}}, "priorityClassName", params.priority_class).front()}});
  rec.impact_score = waiting;
  rec.impact = "the critical chains have waited " + formatSeconds(waiting) +
               " in all; each second a critical task waits adds a second to its run's makespan";
  rec.evidence = {{"runs", runs},
                  {"pending_critical_pods", std::vector<std::string>(pods.begin(), pods.end())},
                  {"critical_waiting_seconds", waiting}};
  return {std::move(rec)};
}

}  // namespace dagadvisor::advice
