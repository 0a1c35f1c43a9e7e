// Deterministic random numbers. The standard distributions differ between library versions,
// so everything is derived from SplitMix64 by hand: same seed, same cluster, everywhere.
#pragma once

#include <cmath>
#include <cstdint>
#include <string_view>

namespace dagadvisor::sim {

/// SplitMix64 step; also used as a hash mixer.
inline std::uint64_t mix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/// Combines a seed with further keys, so independent streams (per run, per pod) can be drawn
/// without depending on the order of the simulation's events.
inline std::uint64_t hashKeys(std::uint64_t seed, std::uint64_t a, std::uint64_t b = 0,
                              std::uint64_t c = 0) {
  return mix64(mix64(mix64(seed ^ mix64(a)) ^ b) ^ c);
}

inline std::uint64_t hashText(std::string_view text) {
  std::uint64_t h = 1469598103934665603ULL;
  for (char ch : text) {
    h = (h ^ static_cast<unsigned char>(ch)) * 1099511628211ULL;
  }
  return h;
}

/// A small deterministic generator with the few distributions the simulator needs.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}

  std::uint64_t next() {
    state_ += 0x9e3779b97f4a7c15ULL;
    return mix64(state_);
  }
  /// Uniform in [0, 1).
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  /// Uniform integer in [0, n).
  std::uint64_t below(std::uint64_t n) { return n == 0 ? 0 : next() % n; }
  /// Standard normal (Box-Muller).
  double normal() {
    double u1 = uniform();
    double u2 = uniform();
    if (u1 < 1e-300) {
      u1 = 1e-300;
    }
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }
  /// Log-normal with the given median and shape.
  double logNormal(double median, double sigma) { return median * std::exp(sigma * normal()); }

 private:
  std::uint64_t state_;
};

}  // namespace dagadvisor::sim
