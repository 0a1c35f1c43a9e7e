#pragma once

#include <cstddef>
#include <string_view>

#include "config/config.h"
#include "model/cluster.h"
#include "model/workflow.h"

namespace dagadvisor::model {

/// The words of the run problem inferEdgesFromTiming leaves ("N dependencies inferred from
/// timing: …"), so that whoever replaces the inferred edges can drop the note with them.
inline constexpr std::string_view kInferredEdgesNote = "inferred from timing";

/// Guesses the edges of a run whose engine did not declare them: a task's parents are the tasks
/// of the run that finished at most `window` seconds before it was created (and were created
/// before it, which keeps the guess acyclic). Engines create a task's pod right after its last
/// parent finishes, so this finds the parents that finished last; earlier ones are missed and
/// unrelated tasks that happened to finish then are added. Edges are marked `inferred`, and
/// their count is recorded in run.problems. Returns the number of edges added.
std::size_t inferEdgesFromTiming(WorkflowRun& run, const ClusterSnapshot& cluster, double window);

/// When edges are guessed at all: inference is on, the run has no edges, and its engine is not
/// the seed's convention (where no declared dependency means none). Then inferEdgesFromTiming
/// with the configured window.
void inferEdgesIfMissing(WorkflowRun& run, const ClusterSnapshot& cluster,
                         const config::WorkflowLabels& keys);

}  // namespace dagadvisor::model
