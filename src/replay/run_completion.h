#pragma once

#include <cstddef>

#include "replay/replay_input.h"

// A run still going at the window's end is seen up to the tasks it had created by then. Its DAG's
// finished runs show what comes after them: the tasks, their edges and their run times. Without
// them a run replays as if it ended with its last created task, and a change that lets its later
// tasks start sooner gains nothing (docs/whatif.md, "What the window does not show").
namespace dagadvisor::replay {

/// Adds to each run unfinished at the window's end the tasks it lacks from the latest finished
/// run of the same DAG that has every task it has (task ids): copies of that run's pods with
/// this run's run labels, its edges between tasks, its observed run times and hand-offs, no
/// observed node, marked `unseen`. A run with no such finished run stays as seen. Returns the
/// number of tasks added.
std::size_t completeRunningRuns(ReplayInput& input);

}  // namespace dagadvisor::replay
