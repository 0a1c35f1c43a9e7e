#include "analysis/transfer_prices.h"

#include <algorithm>
#include <optional>

namespace dagadvisor::analysis {
namespace {

// The one kind of hand-off every parent of `child` made, or nullopt: a parent unplaced, on the
// child's node or of unknown zone, or parents of both kinds.
std::optional<Placement> pureHandOff(const graph::RunGraph& rg, model::TaskIndex child,
                                     const std::vector<Where>& where) {
  std::optional<Placement> kind;
  for (model::TaskIndex parent : rg.graph.parents(child)) {
    const Placement p = classify(where[parent], where[child]);
    if ((p != Placement::kSameZone && p != Placement::kCrossZone) || (kind && *kind != p)) {
      return std::nullopt;
    }
    kind = p;
  }
  return kind;
}

}  // namespace

std::optional<double> fetchSeconds(const model::NetworkReceive& received, double run_seconds) {
  if (run_seconds <= 0 || received.bytes <= 0 || received.mean_bytes > received.bytes) {
    return std::nullopt;
  }
  return 2 * run_seconds * (1 - std::max(0.0, received.mean_bytes) / received.bytes);
}

// Seconds over gigabytes summed over the pods, not a median of each pod's ratio: a fetch shorter
// than the scrape interval is seen by one sample at most, whose phase makes the pod's figure 0 or
// a multiple of the true one. Over pods whose runs start at random phases of the scrapes the sum
// of the samples' deficits is the integral's (the simulator's transfers of 20-160 s under 60-s
// scrapes: 20.7 s/GB for 20, where the median of the ratios said 27-31).
TransferPrices measureTransferPrices(const std::vector<graph::RunGraph>& runs,
                                     const model::ClusterSnapshot& cluster,
                                     const ZoneIndex& zones) {
  struct Sums {
    std::size_t fetches = 0;
    double seconds = 0;
    double gb = 0;
    TransferPrice price() const { return {fetches, gb > 0 ? seconds / gb : 0}; }
  };
  Sums same_zone;
  Sums cross_zone;
  std::vector<Where> where;
  for (const graph::RunGraph& rg : runs) {
    where.clear();
    for (const model::Task& task : rg.run->tasks) {
      where.push_back(whereRan(cluster, task.pod, zones));
    }
    for (model::TaskIndex t = 0; t < rg.run->tasks.size(); ++t) {
      // A parent guessed from timing may have run anywhere: the hand-off's kind is not known.
      // Asked last: it scans the run's edges.
      const model::NetworkReceive* received = cluster.networkReceive(rg.run->tasks[t].pod);
      if (received == nullptr || received->bytes < kMinFetchedBytes || !where[t].placed() ||
          !graph::taskFinished(*where[t].pod) || rg.run->hasInferredParent(t)) {
        continue;
      }
      const auto kind = pureHandOff(rg, t, where);
      const auto seconds = fetchSeconds(*received, rg.run_seconds[t]);
      if (kind && seconds) {
        Sums& sums = *kind == Placement::kSameZone ? same_zone : cross_zone;
        ++sums.fetches;
        sums.seconds += *seconds;
        sums.gb += received->bytes / kBytesPerGb;
      }
    }
  }
  return {same_zone.price(), cross_zone.price()};
}

}  // namespace dagadvisor::analysis
