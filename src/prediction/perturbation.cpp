#include "prediction/perturbation.h"

namespace dagadvisor::prediction {
namespace {

// splitmix64: a fixed, platform-independent stream, so a prediction is the same on every host.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

double unitInterval(std::uint32_t seed, std::size_t pod) {
  const std::uint64_t bits = mix((static_cast<std::uint64_t>(seed) << 32) ^ pod) >> 11;
  return static_cast<double>(bits) / static_cast<double>(1ULL << 53);
}

}  // namespace

replay::ReplayInput perturbRunTimes(const replay::ReplayInput& input, std::uint32_t seed,
                                    double spread) {
  replay::ReplayInput out = input;
  if (seed == 0 || spread <= 0) {
    return out;
  }
  for (std::size_t i = 0; i < out.pods.size(); ++i) {
    replay::ReplayPod& pod = out.pods[i];
    if (pod.role != replay::PodRole::kFixed) {
      pod.run_seconds *= 1 + spread * (2 * unitInterval(seed, i) - 1);
    }
  }
  return out;
}

}  // namespace dagadvisor::prediction
