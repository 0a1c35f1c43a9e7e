#include "replay.h"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace dagadvisor::openb {
namespace {

// splitmix64: tiny, and the same sequence on every standard library (std::uniform_*_distribution
// is not), so a seed names the same snapshot everywhere.
class Random {
 public:
  explicit Random(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }

 private:
  std::uint64_t state_;
};

bool fits(const TraceNode& node, const NodeRoom& room, const TracePod& pod, Pools pools) {
  if (pools == Pools::kRespected && pod.gpus == 0 && node.gpus > 0) {
    return false;  // the GPU taint keeps CPU-only pods off
  }
  return room.cpu_millis >= pod.cpu_millis && room.memory_mib >= pod.memory_mib &&
         room.gpus >= pod.gpus;
}

// The mean share of the node left free once the pod is bound, over CPU, memory and (on GPU
// nodes) GPUs: LeastAllocated prefers the highest, MostAllocated the lowest.
double freeShareAfter(const TraceNode& node, const NodeRoom& room, const TracePod& pod) {
  double share = static_cast<double>(room.cpu_millis - pod.cpu_millis) / node.cpu_millis +
                 static_cast<double>(room.memory_mib - pod.memory_mib) / node.memory_mib;
  if (node.gpus == 0) {
    return share / 2;
  }
  return (share + static_cast<double>(room.gpus - pod.gpus) / node.gpus) / 3;
}

std::size_t choose(const ReplayResult& cluster, const TracePod& pod, Random& random) {
  std::vector<std::size_t> feasible;
  for (std::size_t n = 0; n < cluster.nodes.size(); ++n) {
    if (fits(cluster.nodes[n], cluster.free[n], pod, cluster.options.pools)) {
      feasible.push_back(n);
    }
  }
  if (feasible.empty()) {
    return kPending;
  }
  if (cluster.options.placement == Placement::kRandom) {
    return feasible[random.next() % feasible.size()];
  }
  const double sign = cluster.options.placement == Placement::kSpread ? 1 : -1;
  std::size_t best = feasible.front();
  double best_score = -std::numeric_limits<double>::infinity();
  for (std::size_t n : feasible) {
    const double score = sign * freeShareAfter(cluster.nodes[n], cluster.free[n], pod);
    if (score > best_score) {  // ties keep the first node: the snapshot is deterministic
      best = n;
      best_score = score;
    }
  }
  return best;
}

void bind(ReplayResult& cluster, ReplayedPod& replayed) {
  NodeRoom& room = cluster.free[replayed.node];
  room.cpu_millis -= replayed.pod.cpu_millis;
  room.memory_mib -= replayed.pod.memory_mib;
  room.gpus -= replayed.pod.gpus;
}

// The trace in arrival order, round after round, until the GPU requests reach `target`.
std::vector<TracePod> arrivals(const std::vector<TracePod>& trace, std::int64_t target) {
  std::vector<TracePod> out;
  std::int64_t requested = 0;
  for (int round = 0; requested < target; ++round) {
    const std::int64_t before = requested;
    for (const TracePod& pod : trace) {
      if (requested >= target) {
        break;
      }
      out.push_back(pod);
      if (round > 0) {
        out.back().name += "-r" + std::to_string(round);
      }
      requested += pod.gpus;
    }
    if (requested == before) {
      throw std::runtime_error("the trace requests no GPUs: no load level can be reached");
    }
  }
  return out;
}

}  // namespace

ReplayResult replay(std::vector<TraceNode> nodes, const std::vector<TracePod>& trace,
                    const ReplayOptions& options) {
  ReplayResult cluster{std::move(nodes), {}, {}, options};
  std::int64_t gpus = 0;
  for (const TraceNode& node : cluster.nodes) {
    cluster.free.push_back({node.cpu_millis - options.agent_cpu_millis,
                            node.memory_mib - options.agent_memory_mib, node.gpus});
    gpus += node.gpus;
  }
  const auto target = static_cast<std::int64_t>(std::llround(options.load * gpus));
  Random random(options.seed);
  for (TracePod& pod : arrivals(trace, target)) {
    ReplayedPod replayed{std::move(pod), kPending};
    replayed.node = choose(cluster, replayed.pod, random);
    if (replayed.node != kPending) {
      bind(cluster, replayed);
    }
    cluster.pods.push_back(std::move(replayed));
  }
  return cluster;
}

}  // namespace dagadvisor::openb
