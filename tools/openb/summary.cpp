#include "summary.h"

#include <cstdint>

namespace dagadvisor::openb {

const char* placementName(Placement placement) {
  switch (placement) {
    case Placement::kSpread:
      return "spread";
    case Placement::kBestFit:
      return "best-fit";
    case Placement::kRandom:
      return "random";
  }
  return "?";
}

const char* poolsName(Pools pools) {
  return pools == Pools::kMixed ? "mixed" : "respected";
}

nlohmann::json summarize(const ReplayResult& cluster) {
  std::int64_t gpus = 0, gpu_nodes = 0, free_gpus = 0;
  for (std::size_t n = 0; n < cluster.nodes.size(); ++n) {
    gpus += cluster.nodes[n].gpus;
    gpu_nodes += cluster.nodes[n].gpus > 0 ? 1 : 0;
    free_gpus += cluster.free[n].gpus;
  }
  std::int64_t bound = 0, pending = 0, pending_gpu = 0, pending_gpus = 0, cpu_on_gpu = 0;
  for (const ReplayedPod& p : cluster.pods) {
    if (p.node == kPending) {
      ++pending;
      pending_gpu += p.pod.gpus > 0 ? 1 : 0;
      pending_gpus += p.pod.gpus;
    } else {
      ++bound;
      cpu_on_gpu += p.pod.gpus == 0 && cluster.nodes[p.node].gpus > 0 ? 1 : 0;
    }
  }
  return {{"nodes", cluster.nodes.size()},
          {"gpu_nodes", gpu_nodes},
          {"gpus", gpus},
          {"arrived_pods", cluster.pods.size()},
          {"bound_pods", bound},
          {"pending_pods", pending},
          {"pending_gpu_pods", pending_gpu},
          {"pending_gpus_requested", pending_gpus},
          {"free_gpus", free_gpus},
          {"cpu_pods_on_gpu_nodes", cpu_on_gpu},
          {"load", cluster.options.load},
          {"placement", placementName(cluster.options.placement)},
          {"pools", poolsName(cluster.options.pools)},
          {"seed", cluster.options.seed}};
}

}  // namespace dagadvisor::openb
