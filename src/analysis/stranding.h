#pragma once

#include <array>
#include <string_view>

#include "model/cluster.h"

namespace dagadvisor::analysis {

/// The resources a node has, in the order every stranding figure lists them.
enum class Resource { kCpu = 0, kMemory = 1, kGpu = 2 };
inline constexpr std::array<Resource, 3> kResources = {Resource::kCpu, Resource::kMemory,
                                                       Resource::kGpu};

/// "cpu", "memory", "gpu".
std::string_view resourceName(Resource resource);

/// The thresholds of the stranding rule below (detectors.stranded_resources sets them).
struct StrandingRule {
  double max_exhausted_free_share = 0.05;
  double min_stranded_share = 0.25;

  bool operator==(const StrandingRule&) const = default;
};

/// How one node's resources stand (Borg's stranded resources): a resource is exhausted when its
/// free share is at most `max_exhausted_free_share`, and while one is, the others' free shares of
/// at least `min_stranded_share` are stranded: no pod can use them. The one rule behind the
/// stranded-resources finding, the nodes view and dagadvisor_node_stranded_share.
struct NodeStranding {
  /// Free share per resource (0…1; 0 on an over-committed resource, none is free), indexed by
  /// Resource; 0 for a resource the node does not have.
  std::array<double, 3> free_share{};
  std::array<bool, 3> exhausted{};
  std::array<bool, 3> stranded{};
  double stranded_node_units = 0;  // sum of the stranded free shares

  bool anyStranded() const { return stranded[0] || stranded[1] || stranded[2]; }
  /// The stranded resource with the largest free share (the first on ties); only when
  /// anyStranded().
  Resource largestStranded() const;
};

/// The stranding of node `id` of `cluster`. Nodes no pod can be placed on (cordoned, or without
/// allocatable CPU or memory) strand nothing.
NodeStranding strandingOf(const model::ClusterSnapshot& cluster, model::NodeId id,
                          const StrandingRule& rule);

/// Whether pods can be placed on `node` at all: schedulable, with allocatable CPU and memory.
bool acceptsPods(const model::Node& node);

}  // namespace dagadvisor::analysis
