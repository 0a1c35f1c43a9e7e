#include "advice/kinds/shard_candidate.h"

#include "advice/kinds/finding_groups.h"
#include "analysis/detectors/shard_candidate.h"

namespace dagadvisor::advice {

std::vector<Recommendation> adviseShardCandidate(const FindingList& findings,
                                                 const config::Config& /*config*/,
                                                 const model::ClusterSnapshot& /*cluster*/) {
  std::vector<Recommendation> out;
  for (const analysis::Finding* f : findings) {
    const auto& e = f->evidenceAs<analysis::ShardCandidateEvidence>();
    const std::string& task = e.task;
    const std::string chunks = std::to_string(e.chunks);
    Recommendation rec;
    rec.kind = std::string(analysis::ShardCandidateEvidence::kKind);
    rec.target = f->target;
    rec.evidence = cover(rec, {f}).front();
    rec.title = f->summary;
    rec.action = "Split task " + task + " into " + chunks +
                 " parallel chunks (the seed's split_big_task: a fan-out of chunk tasks and a "
                 "merge task), so that idle nodes take a chunk each. No patch: this is a change "
                 "to the DAG's definition.";
    rec.impact_score = f->impact;
    rec.impact = "about " + formatSeconds(f->impact) + " less makespan per run (expected " +
                 formatSeconds(e.expectedMakespanSeconds()) + " instead of " +
                 formatSeconds(e.median_makespan_seconds) + ")";
    out.push_back(std::move(rec));
  }
  return out;
}

}  // namespace dagadvisor::advice
