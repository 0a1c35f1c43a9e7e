#pragma once

#include <nlohmann/json.hpp>

#include "replay.h"

namespace dagadvisor::openb {

/// The replayed cluster's ground truth, which the tests hold dagadvisor's report against:
/// {"nodes", "gpu_nodes", "gpus", "arrived_pods", "bound_pods", "pending_pods",
///  "pending_gpu_pods", "pending_gpus_requested", "free_gpus", "cpu_pods_on_gpu_nodes",
///  "load", "placement", "pools", "seed"}. Pending pods count the trace pods only (the node
/// agents are all bound).
nlohmann::json summarize(const ReplayResult& cluster);

const char* placementName(Placement placement);
const char* poolsName(Pools pools);

}  // namespace dagadvisor::openb
