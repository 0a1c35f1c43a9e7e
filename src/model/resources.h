#pragma once

#include <cstdint>

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

  /// True when every component of `demand` fits in this vector.
  bool fits(const ResourceVector& demand) const {
    return demand.cpu_millis <= cpu_millis && demand.memory_bytes <= memory_bytes &&
           demand.gpus <= gpus;
  }
};

}  // namespace dagadvisor::model
