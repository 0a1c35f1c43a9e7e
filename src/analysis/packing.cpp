#include "analysis/packing.h"

#include <algorithm>

#include "analysis/detectors/detector_util.h"

namespace dagadvisor::analysis {
namespace {

using model::ResourceVector;

bool placeFirstFit(std::vector<ResourceVector>& bins, const ResourceVector& demand) {
  const auto bin = std::find_if(bins.begin(), bins.end(),
                                [&](const ResourceVector& b) { return b.fits(demand); });
  if (bin == bins.end()) {
    return false;
  }
  *bin -= demand;
  return true;
}

}  // namespace

std::size_t podsFittingTogether(std::vector<ResourceVector> pods, std::vector<ResourceVector> bins,
                                const ResourceVector& scale) {
  auto size = [&](const ResourceVector& r) {
    return share(r.cpu_millis, scale.cpu_millis) + share(r.memory_bytes, scale.memory_bytes);
  };
  std::stable_sort(pods.begin(), pods.end(), [&](const ResourceVector& a, const ResourceVector& b) {
    return size(a) > size(b);
  });
  return static_cast<std::size_t>(
      std::count_if(pods.begin(), pods.end(),
                    [&](const ResourceVector& pod) { return placeFirstFit(bins, pod); }));
}

}  // namespace dagadvisor::analysis
