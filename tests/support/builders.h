#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "model/cluster.h"

namespace dagadvisor::testing {

inline constexpr std::int64_t kGiB = 1024LL * 1024 * 1024;

/// A node with allocatable CPU (cores), memory (GiB) and GPUs; `tweak` adjusts the rest.
inline model::Node makeNode(std::string name, double cores, double mem_gib, std::int64_t gpus = 0,
                            const std::function<void(model::Node&)>& tweak = {}) {
  model::Node node;
  node.name = std::move(name);
  node.allocatable = {static_cast<std::int64_t>(cores * 1000),
                      static_cast<std::int64_t>(mem_gib * kGiB), gpus};
  node.capacity = node.allocatable;
  if (gpus > 0) {
    node.labels.set("accelerator", "nvidia-tesla");
  }
  if (tweak) {
    tweak(node);
  }
  return node;
}

/// A running pod on `node` ("" = pending, unscheduled) with requests; `tweak` adjusts the rest.
inline model::Pod makePod(std::string ns, std::string name, std::string node, double cores,
                          double mem_gib, std::int64_t gpus = 0,
                          const std::function<void(model::Pod&)>& tweak = {}) {
  model::Pod pod;
  pod.namespace_ = std::move(ns);
  pod.name = std::move(name);
  pod.uid = pod.namespace_ + "-" + pod.name;
  pod.node_name = std::move(node);
  pod.phase = pod.node_name.empty() ? model::PodPhase::kPending : model::PodPhase::kRunning;
  pod.requests = {static_cast<std::int64_t>(cores * 1000),
                  static_cast<std::int64_t>(mem_gib * kGiB), gpus};
  pod.created = 1000.0;
  if (tweak) {
    tweak(pod);
  }
  return pod;
}

inline std::function<void(model::Pod&)> ownedBy(std::string kind, std::string name) {
  return [kind = std::move(kind), name = std::move(name)](model::Pod& p) {
    p.owner_kind = kind;
    p.owner_name = name;
  };
}

}  // namespace dagadvisor::testing
