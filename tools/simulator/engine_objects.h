// The workflow engines' own objects in the simulated cluster, as `kubectl get ... -A -o json`
// prints them: Tekton's PipelineRuns (tekton.dev/v1), written to objects.json by `generate`.
#pragma once

#include <nlohmann/json.hpp>

#include "simulation.h"

namespace dagadvisor::sim {

/// Seconds after the start at which the written window ends: `output.window_end`, or the end
/// of the simulation.
double writtenWindowEnd(const History& history);

/// What `kubectl get pipelineruns.tekton.dev -A -o json` prints `t` seconds after the start: a
/// v1 List holding one PipelineRun per run of a `tekton` workflow that arrived by then (ordered
/// by namespace and name, as the API server lists them), its status as the Tekton controller
/// reports it at `t`. Without Tekton runs the List has no items.
nlohmann::json pipelineRunList(const History& history, double t);

/// The same at the end of the written window: the content of objects.json.
nlohmann::json pipelineRunList(const History& history);

}  // namespace dagadvisor::sim
