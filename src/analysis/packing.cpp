#include "analysis/packing.h"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <utility>

#include "analysis/detectors/detector_util.h"

namespace dagadvisor::analysis {
namespace {

using model::ResourceVector;

std::vector<std::size_t> packingOrder(const std::vector<ResourceVector>& demands,
                                      const PackingOrder& larger_first) {
  std::vector<std::size_t> order(demands.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return larger_first(demands[a], demands[b]);
  });
  return order;
}

// The plain first fit: the bins in index order. Every demand holds at least `smallest` of each
// resource, so a bin without that room will never take one: it leaves the scan, which then stays
// short however many bins fill up. Idle when the caller has a first fit of its own.
class InOrderScan {
 public:
  InOrderScan(const Bins& bins, const std::vector<ResourceVector>& demands) : bins_(bins) {
    for (const ResourceVector& demand : demands) {
      smallest_ = model::componentMin(smallest_, demand);
    }
    if (!bins.first_fit) {
      for (std::size_t b = 0; b < bins.room.size(); ++b) {
        opened(b);
      }
    }
  }

  std::size_t firstFit(std::size_t d, const ResourceVector& demand) const {
    const auto it = std::find_if(open_.begin(), open_.end(), [&](std::size_t b) {
      return bins_.room[b].fits(demand) && (!bins_.admits || bins_.admits(d, b));
    });
    return it == open_.end() ? kNoBin : *it;
  }

  // Bin b, the last one, was just added.
  void opened(std::size_t b) {
    if (bins_.room[b].fits(smallest_)) {
      open_.push_back(b);
    }
  }

  // Bin b took a demand.
  void took(std::size_t b) {
    if (!bins_.room[b].fits(smallest_)) {
      std::erase(open_, b);
    }
  }

 private:
  static constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  const Bins& bins_;
  ResourceVector smallest_{kMax, kMax, kMax};
  std::vector<std::size_t> open_;  // the bins the scan still looks at, in index order
};

}  // namespace

std::vector<std::size_t> firstFitDecreasing(const std::vector<ResourceVector>& demands,
                                            const PackingOrder& larger_first, Bins& bins) {
  std::vector<std::size_t> bin_of(demands.size(), kNoBin);
  InOrderScan scan(bins, demands);
  for (const std::size_t d : packingOrder(demands, larger_first)) {
    std::size_t b = bins.first_fit ? bins.first_fit(d, bins.room) : scan.firstFit(d, demands[d]);
    if (b == kNoBin && bins.empty_bin && bins.empty_bin->fits(demands[d])) {
      b = bins.room.size();
      bins.room.push_back(*bins.empty_bin);
      scan.opened(b);
    }
    if (b == kNoBin) {
      continue;
    }
    bins.room[b] -= demands[d];
    scan.took(b);
    bin_of[d] = b;
    if (bins.landed) {
      bins.landed(d, b);
    }
  }
  return bin_of;
}

std::size_t podsFittingTogether(const std::vector<ResourceVector>& pods,
                                std::vector<ResourceVector> bins, const ResourceVector& scale) {
  auto size = [&](const ResourceVector& r) {
    return share(r.cpu_millis, scale.cpu_millis) + share(r.memory_bytes, scale.memory_bytes);
  };
  Bins free{.room = std::move(bins)};
  const std::vector<std::size_t> bin_of = firstFitDecreasing(
      pods, [&](const ResourceVector& a, const ResourceVector& b) { return size(a) > size(b); },
      free);
  return static_cast<std::size_t>(
      std::count_if(bin_of.begin(), bin_of.end(), [](std::size_t b) { return b != kNoBin; }));
}

}  // namespace dagadvisor::analysis
