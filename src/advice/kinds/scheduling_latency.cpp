#include "advice/kinds/scheduling_latency.h"

#include <map>

#include "advice/kinds/finding_groups.h"
#include "analysis/detectors/scheduling_latency.h"

namespace dagadvisor::advice {
namespace {

using analysis::SchedulingLatencyEvidence;

// What to do about each cause the detector can name.
const std::map<std::string, std::string> kActions = {
    {"unschedulable",
     "Pods wait in the unschedulable queue, rejected by the plugin named in the evidence: fix "
     "the constraint it enforces (resources: see capacity-shortfall and stranded-resources; "
     "taints and affinity: relax the pods' constraints)."},
    {"failed_attempts",
     "Most scheduling attempts fail: pods are retried until they fit; look at the unschedulable "
     "pods and their events, and at capacity."},
    {"scheduler_errors",
     "The scheduler reports errors (API server or extender failures): check its logs."},
    {"slow_extension_point",
     "One extension point is slow (p99 in the evidence): review the plugins or extenders "
     "running there, or lower percentageOfNodesToScore on large clusters."},
    {"preemption",
     "The scheduler preempts pods: priority classes make pods evict each other; check that "
     "batch work does not preempt itself."},
    {"queue",
     "Many pods wait in the scheduler's queues: raise the scheduler's QPS/burst to the API "
     "server or spread bursts of pod creation."},
};

std::string causeAction(const std::vector<analysis::SchedulingCause>& causes) {
  const std::string primary = causes.empty() ? "" : std::string(causes.front().name());
  const auto action = kActions.find(primary);
  return action != kActions.end()
             ? action->second
             : "The scheduler's own metrics are not available, so the cause cannot be named: "
               "expose kube-scheduler metrics to Prometheus, then look at queues, attempts and "
               "plugin durations.";
}

// Pending pods: their waiting is measured (analysis time − creation), and no quantile of the
// scheduler's histogram includes it yet.
std::string pendingAction(const analysis::PendingWait& w, const std::string& cause_action) {
  return std::to_string(w.over_slo) +
         " pod(s) have waited longer than the SLO and are still "
         "pending (" +
         std::to_string(w.gpu_over_slo) + " requesting GPUs; the oldest for " +
         formatSeconds(w.oldest_seconds) +
         ", measured from kube_pod_created): the scheduler's "
         "latency histogram counts a pod only once it is scheduled, so these are not in its "
         "quantiles. Why each one waits is diagnosed by gpu-node-hoarding, stranded-resources "
         "and capacity-shortfall where they report; " +
         cause_action;
}

Recommendation adviseProfile(const analysis::Finding& f) {
  Recommendation rec;
  rec.kind = std::string(SchedulingLatencyEvidence::kKind);
  rec.target = f.target;
  rec.evidence = cover(rec, {&f}).front();
  const auto& e = f.evidenceAs<SchedulingLatencyEvidence>();
  rec.title = f.summary;
  rec.action = e.pending ? pendingAction(*e.pending, causeAction(e.causes)) : causeAction(e.causes);
  rec.impact_score = f.impact;
  rec.impact = e.pending
                   ? "the oldest pending pod has waited " + formatSeconds(f.impact) +
                         " beyond the p99 SLO so far (measured); every minute it stays "
                         "pending adds to it"
                   : "scheduling latency back under its SLO: about " + formatSeconds(f.impact) +
                         " less waiting per affected pod (measured by the scheduler's "
                         "histogram)";
  return rec;
}

}  // namespace

std::vector<Recommendation> adviseSchedulingLatency(const FindingList& findings,
                                                    const config::Config& /*config*/,
                                                    const model::ClusterSnapshot& /*cluster*/) {
  std::vector<Recommendation> out;
  for (const analysis::Finding* f : findings) {
    out.push_back(adviseProfile(*f));
  }
  return out;
}

}  // namespace dagadvisor::advice
