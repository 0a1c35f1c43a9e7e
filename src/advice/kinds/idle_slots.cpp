#include "advice/kinds/idle_slots.h"

#include <algorithm>

#include "advice/kinds/finding_groups.h"

namespace dagadvisor::advice {
namespace {

using nlohmann::json;

Recommendation adviseDag(const std::string& dag, const FindingList& findings) {
  Recommendation rec;
  rec.kind = "idle-slots";
  rec.target = "dag/" + dag;
  const json runs = cover(rec, findings);
  double lost = 0;
  double whatif_gain = 0;
  std::size_t tasks = 0;
  for (const json& run : runs) {
    lost += run.value("lost_slot_seconds", 0.0);
    tasks += run.value("ready_tasks", json::array()).size();
    if (run.contains("whatif_makespan_seconds")) {
      whatif_gain = std::max(whatif_gain, run.value("makespan_seconds", 0.0) -
                                              run.value("whatif_makespan_seconds", 0.0));
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
               (whatif_gain > 0 ? "; the HEFT what-if saves up to " + formatSeconds(whatif_gain) +
                                      " of makespan per run"
                                : std::string());
  rec.evidence = {{"runs", runs}, {"lost_slot_seconds", lost}};
  return rec;
}

}  // namespace

std::vector<Recommendation> adviseIdleSlots(const FindingList& findings,
                                            const config::Config& /*config*/) {
  std::vector<Recommendation> out;
  for (const auto& [dag, runs] : groupByDag(findings)) {
    out.push_back(adviseDag(dag, runs));
  }
  return out;
}

}  // namespace dagadvisor::advice
