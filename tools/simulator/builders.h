// Construction of the simulated objects: nodes, long-running pods, and task pods labelled the
// way each workflow engine labels them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "simulation.h"

namespace dagadvisor::sim {

/// The GPU taint the `gpu_taints` remedy puts on GPU nodes.
inline constexpr const char* kGpuTaintKey = "nvidia.com/gpu";

/// Nodes of every pool, spread round-robin over the zones.
std::vector<Node> buildNodes(const Scenario& scenario, Policy policy);

/// DaemonSet pods (one per node, pinned) and Deployment replicas (to be scheduled), created
/// before t = 0 so the cluster is already busy when the window opens.
std::vector<Pod> buildLongRunningPods(const Scenario& scenario, Policy policy,
                                      const std::vector<Node>& nodes);

/// Names the run and its engine-specific identity.
Run makeRun(const Scenario& scenario, int workflow, int index, double arrival);

/// The pod of one task of a run, with the engine's labels, annotations and owner.
Pod makeTaskPod(const Scenario& scenario, Policy policy, const Run& run, int task, double created,
                const std::vector<double>& ranks, const std::vector<bool>& onCriticalPath);

/// Upward rank of each task (its median run time plus the longest chain below it).
std::vector<double> upwardRanks(const WorkflowSpec& workflow);

/// Tasks on the critical path by median run times.
std::vector<bool> staticCriticalPath(const WorkflowSpec& workflow,
                                     const std::vector<double>& ranks);

/// Kubernetes generateName-style suffix of `length` characters.
std::string nameSuffix(std::uint64_t key, int length);

/// RFC 4122-shaped uid derived from a key.
std::string makeUid(std::uint64_t key);

}  // namespace dagadvisor::sim
