#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "analysis/transfer_measurement.h"
#include "graph/run_graph.h"
#include "model/cluster.h"

// What a gigabyte handed from a parent on another node costs the child, measured from what the
// task pods received over the network (model::NetworkReceive): per pod, not per DAG, so that a DAG
// that ran once is priced by the cluster's other transfers (the crossing measurement of
// transfer_measurement.h needs three runs a side of the same task).
namespace dagadvisor::analysis {

/// A gigabyte as prices count it (decimal, as network figures are).
inline constexpr double kBytesPerGb = 1e9;

/// Pods a price stands on, at the least: a fetch shorter than the scrape interval is seen by one
/// sample at most, so one pod's figure is noise; their sum is not.
inline constexpr std::size_t kMinPricedFetches = 3;
/// Below this a pod's received bytes are its background traffic (probes, DNS, metrics), not a
/// parent's output.
inline constexpr double kMinFetchedBytes = 50e6;

/// Seconds per gigabyte (10^9 bytes) of one kind of hand-off, over the pods that measured it.
struct TransferPrice {
  std::size_t fetches = 0;  // pods measured
  double seconds_per_gb = 0;

  bool measured() const { return fetches >= kMinPricedFetches; }
};

/// A hand-off from a parent on another node of the child's zone, and from another zone. A parent
/// on the child's own node is not priced: its output does not cross the network between nodes.
struct TransferPrices {
  TransferPrice same_zone;
  TransferPrice cross_zone;

  bool measured() const { return same_zone.measured() && cross_zone.measured(); }
};

/// How long a pod's fetch took, from its counter: a pod that received `bytes` at a steady rate
/// from the start of its run, for T seconds of a run of L, has a counter whose mean over the run
/// is bytes × (1 − T / 2L), so T = 2L × (1 − mean / bytes). nullopt when the figures cannot be
/// those of a fetch (no run time, a mean above the total).
std::optional<double> fetchSeconds(const model::NetworkReceive& received, double run_seconds);

/// The prices, each over the finished task pods whose parents all ran on other nodes of one kind
/// (all in the child's zone, or all in other zones): their fetch seconds over their gigabytes.
TransferPrices measureTransferPrices(const std::vector<graph::RunGraph>& runs,
                                     const model::ClusterSnapshot& cluster, const ZoneIndex& zones);

}  // namespace dagadvisor::analysis
