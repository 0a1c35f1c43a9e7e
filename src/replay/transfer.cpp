#include "replay/transfer.h"

namespace dagadvisor::replay {

std::optional<double> transferSeconds(const ReplayPod& pod, ReplayNodeId node,
                                      std::span<const ReplayNodeId> parent_nodes,
                                      const std::vector<ReplayNode>& nodes) {
  const std::string& zone = nodes[node].zone;
  bool crossed = false;
  for (ReplayNodeId parent : parent_nodes) {
    if (parent == node) {
      continue;
    }
    if (zone.empty() || nodes[parent].zone.empty()) {
      return std::nullopt;
    }
    crossed = crossed || nodes[parent].zone != zone;
  }
  return crossed ? pod.cross_zone_seconds : 0;
}

}  // namespace dagadvisor::replay
