#include "advice/kinds/idle_slots.h"

#include <algorithm>

#include "advice/kinds/finding_groups.h"
#include "analysis/detectors/idle_slots.h"

namespace dagadvisor::advice {
namespace {

using analysis::IdleSlotsEvidence;
using nlohmann::json;

Recommendation adviseDag(const std::string& dag, const FindingList& findings) {
  Recommendation rec;
  rec.kind = std::string(IdleSlotsEvidence::kKind);
  rec.target = "dag/" + dag;
  const json runs = cover(rec, findings);
  double lost = 0;
  double whatif_gain = 0;
  std::size_t tasks = 0;
  for (const analysis::Finding* f : byImpact(findings)) {  // cover's order: the same sum
    const auto& run = f->evidenceAs<IdleSlotsEvidence>();
    lost += run.lost_slot_seconds;
    tasks += run.ready_tasks.size();
    // The runs are unfinished (their tasks pend): the what-if is a gain only where it is
    // already shorter than the time elapsed, and then at least that much.
    if (run.whatif && run.whatif->verdict == graph::WhatIfVerdict::kEstimatedGain) {
      whatif_gain = std::max(whatif_gain, run.whatif->gain_seconds);
    }
  }
  rec.title = dag + ": " + std::to_string(tasks) + " ready task(s) pending while nodes have room";
  rec.action =
      "These tasks' parents have finished and a node has room for them, yet they pend: the "
      "scheduler rejects them for another reason. Check the pods' events (kubectl describe pod) "
      "and the scheduling-latency finding for the rejecting plugin; relax required node or pod "
      "affinity and nodeSelectors that exclude the nodes listed, or give the tasks a "
      "PriorityClass (critical-path-priority) so they are tried first. No patch: the cause is "
      "in the pods' constraints, which the metrics do not show.";
  rec.impact_score = lost;
  rec.impact = formatSeconds(lost) + " of ready-task waiting while nodes had room" +
               (whatif_gain > 0 ? "; the HEFT what-if (estimated run times for the unfinished "
                                  "tasks) saves at least " +
                                      formatSeconds(whatif_gain) + " of makespan in one run"
                                : std::string());
  rec.evidence = {{"runs", runs}, {"lost_slot_seconds", lost}};
  return rec;
}

}  // namespace

std::vector<Recommendation> adviseIdleSlots(const FindingList& findings,
                                            const config::Config& /*config*/,
                                            const model::ClusterSnapshot& /*cluster*/) {
  std::vector<Recommendation> out;
  for (const auto& [dag, runs] : groupByDag<IdleSlotsEvidence>(findings)) {
    out.push_back(adviseDag(dag, runs));
  }
  return out;
}

}  // namespace dagadvisor::advice
