#include "replay/transfer.h"

namespace dagadvisor::replay {

std::optional<double> transferSeconds(const ReplayPod& pod, ReplayNodeId node,
                                      std::span<const ReplayNodeId> parent_nodes,
                                      const std::vector<ReplayNode>& nodes) {
  const std::string& zone = nodes[node].zone;
  bool crossed = false;
  double priced = 0;
  for (ReplayNodeId parent : parent_nodes) {
    if (parent == node) {
      continue;
    }
    if (zone.empty() || nodes[parent].zone.empty()) {
      return std::nullopt;
    }
    const bool across = nodes[parent].zone != zone;
    crossed = crossed || across;
    priced += pod.bytes_per_parent * (across ? pod.prices.cross_zone_seconds_per_byte
                                             : pod.prices.same_zone_seconds_per_byte);
  }
  if (pod.prices.priced()) {
    return priced;
  }
  return crossed ? pod.cross_zone_seconds : 0;
}

}  // namespace dagadvisor::replay
