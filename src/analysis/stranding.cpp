#include "analysis/stranding.h"

#include <algorithm>

namespace dagadvisor::analysis {
namespace {

std::array<std::int64_t, 3> components(const model::ResourceVector& v) {
  return {v.cpu_millis, v.memory_bytes, v.gpus};
}

}  // namespace

std::string_view resourceName(Resource resource) {
  switch (resource) {
    case Resource::kCpu:
      return "cpu";
    case Resource::kMemory:
      return "memory";
    case Resource::kGpu:
      return "gpu";
  }
  return "cpu";
}

Resource NodeStranding::largestStranded() const {
  Resource best = Resource::kCpu;
  double best_share = -1;
  for (Resource r : kResources) {
    const auto i = static_cast<std::size_t>(r);
    if (stranded[i] && free_share[i] > best_share) {
      best = r;
      best_share = free_share[i];
    }
  }
  return best;
}

bool acceptsPods(const model::Node& node) {
  return !node.unschedulable && node.allocatable.cpu_millis > 0 &&
         node.allocatable.memory_bytes > 0;
}

NodeStranding strandingOf(const model::ClusterSnapshot& cluster, model::NodeId id,
                          const StrandingRule& rule) {
  NodeStranding out;
  const model::Node& node = cluster.node(id);
  if (!acceptsPods(node)) {
    return out;
  }
  const auto alloc = components(node.allocatable);
  const auto free = components(cluster.freeOn(id));
  bool any_exhausted = false;
  for (std::size_t r = 0; r < 3; ++r) {
    if (alloc[r] > 0) {
      out.free_share[r] =
          static_cast<double>(std::max<std::int64_t>(0, free[r])) / static_cast<double>(alloc[r]);
      out.exhausted[r] = out.free_share[r] <= rule.max_exhausted_free_share;
      any_exhausted = any_exhausted || out.exhausted[r];
    }
  }
  if (!any_exhausted) {
    return out;
  }
  for (std::size_t r = 0; r < 3; ++r) {
    out.stranded[r] =
        alloc[r] > 0 && !out.exhausted[r] && out.free_share[r] >= rule.min_stranded_share;
    out.stranded_node_units += out.stranded[r] ? out.free_share[r] : 0;
  }
  return out;
}

}  // namespace dagadvisor::analysis
