#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "trace.h"

namespace dagadvisor::openb {

/// Where the replay puts a pod among the nodes it fits: kube-scheduler's LeastAllocated
/// ("spread"), MostAllocated ("best-fit"), or a seeded uniform pick ("random").
enum class Placement { kSpread, kBestFit, kRandom };

/// "mixed": CPU-only pods may land on GPU nodes. "respected": GPU nodes carry the taint
/// nvidia.com/gpu:NoSchedule that only GPU pods (and the node agent) tolerate, so CPU-only pods
/// stay on CPU nodes.
enum class Pools { kMixed, kRespected };

struct ReplayOptions {
  /// Arrive pods until their GPU requests reach this share of the cluster's GPUs (1.3 = 130 %).
  /// Past the end of the trace it starts again (names get "-r1", "-r2", …): the trace itself
  /// requests about 120 % of its GPUs.
  double load = 1.0;
  Placement placement = Placement::kSpread;
  Pools pools = Pools::kMixed;
  std::uint64_t seed = 1;
  /// A node agent DaemonSet on every node, bound before the replay, as real clusters have.
  std::int64_t agent_cpu_millis = 100;
  std::int64_t agent_memory_mib = 128;
};

inline constexpr std::size_t kPending = std::numeric_limits<std::size_t>::max();

/// A replayed pod: its trace shape (under its replay name) and the node it is bound to.
struct ReplayedPod {
  TracePod pod;
  std::size_t node = kPending;  // index into the nodes, kPending when it fit nowhere
};

/// Room left on one node.
struct NodeRoom {
  std::int64_t cpu_millis = 0;
  std::int64_t memory_mib = 0;
  std::int64_t gpus = 0;
};

/// The cluster after the replay: every pod arrived once, in order, without deletions.
struct ReplayResult {
  std::vector<TraceNode> nodes;
  std::vector<NodeRoom> free;     // by node, after the agent and the bound pods
  std::vector<ReplayedPod> pods;  // arrival order
  ReplayOptions options;
};

ReplayResult replay(std::vector<TraceNode> nodes, const std::vector<TracePod>& trace,
                    const ReplayOptions& options);

}  // namespace dagadvisor::openb
