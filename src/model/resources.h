#pragma once

#include <algorithm>
#include <cstdint>
#include <tuple>

namespace dagadvisor::model {

/// The resources the scheduler packs: CPU in millicores, memory in bytes, whole GPUs
/// (`nvidia.com/gpu`, exported by kube-state-metrics as `resource="nvidia_com_gpu"`).
struct ResourceVector {
  std::int64_t cpu_millis = 0;
  std::int64_t memory_bytes = 0;
  std::int64_t gpus = 0;

  ResourceVector& operator+=(const ResourceVector& o) {
    cpu_millis += o.cpu_millis;
    memory_bytes += o.memory_bytes;
    gpus += o.gpus;
    return *this;
  }
  ResourceVector& operator-=(const ResourceVector& o) {
    cpu_millis -= o.cpu_millis;
    memory_bytes -= o.memory_bytes;
    gpus -= o.gpus;
    return *this;
  }
  friend ResourceVector operator+(ResourceVector a, const ResourceVector& b) { return a += b; }
  friend ResourceVector operator-(ResourceVector a, const ResourceVector& b) { return a -= b; }
  friend bool operator==(const ResourceVector&, const ResourceVector&) = default;

  /// The key requests are ordered by size and grouped into shapes by: GPUs, then CPU, then
  /// memory.
  using SizeKey = std::tuple<std::int64_t, std::int64_t, std::int64_t>;
  SizeKey sizeKey() const { return {gpus, cpu_millis, memory_bytes}; }

  /// True when every component of `demand` fits in this vector.
  bool fits(const ResourceVector& demand) const {
    return demand.cpu_millis <= cpu_millis && demand.memory_bytes <= memory_bytes &&
           demand.gpus <= gpus;
  }
};

/// Component by component, the smaller or the larger of two vectors.
inline ResourceVector componentMin(const ResourceVector& a, const ResourceVector& b) {
  return {std::min(a.cpu_millis, b.cpu_millis), std::min(a.memory_bytes, b.memory_bytes),
          std::min(a.gpus, b.gpus)};
}
inline ResourceVector componentMax(const ResourceVector& a, const ResourceVector& b) {
  return {std::max(a.cpu_millis, b.cpu_millis), std::max(a.memory_bytes, b.memory_bytes),
          std::max(a.gpus, b.gpus)};
}

/// Whether `a` comes before `b` when requests are taken largest first (by sizeKey()).
inline bool largerFirst(const ResourceVector& a, const ResourceVector& b) {
  return a.sizeKey() > b.sizeKey();
}

/// Component by component, no less than zero: the free room of an over-committed node is none,
/// and a demand already met needs nothing more.
inline ResourceVector nonNegative(const ResourceVector& v) {
  return componentMax(v, {});
}

}  // namespace dagadvisor::model
