#include "scheduler.h"

#include <algorithm>
#include <cmath>

#include "builders.h"
#include "rng.h"

namespace dagadvisor::sim {
namespace {

constexpr double kEpsilon = 1e-9;

bool tolerates(const Pod& pod, const Taint& taint) {
  if (taint.effect == "PreferNoSchedule") {
    return true;
  }
  return pod.toleratesEverything || (pod.toleratesGpuTaint && taint.key == kGpuTaintKey);
}

double freeFraction(double used, double request, double allocatable) {
  return allocatable <= 0 ? 0 : std::max(0.0, (allocatable - used - request) / allocatable);
}

}  // namespace

Scheduler::Scheduler(std::vector<Node>& nodes, bool parentAffinity, std::uint64_t seed)
    : nodes_(nodes), parentAffinity_(parentAffinity), seed_(seed) {}

bool podAdmits(const Pod& pod, const Node& node) {
  if (!pod.pinnedNode.empty() && pod.pinnedNode != node.name) {
    return false;
  }
  if (!pod.requiredNodeType.empty() && pod.requiredNodeType != node.nodeType) {
    return false;
  }
  for (const auto& taint : node.taints) {
    if (!tolerates(pod, taint)) {
      return false;
    }
  }
  return true;
}

bool podFits(const Pod& pod, const Node& node) {
  if (!podAdmits(pod, node)) {
    return false;
  }
  const Resources& a = node.allocatable;
  const Resources& u = node.used;
  const Resources& r = pod.request;
  return u.cpu + r.cpu <= a.cpu + kEpsilon && u.memory + r.memory <= a.memory + kEpsilon &&
         u.gpu + r.gpu <= a.gpu && u.pods + r.pods <= a.pods;
}

// NodeResourcesFit (LeastAllocated) and NodeResourcesBalancedAllocation with their default
// weights of 1; the parent-affinity remedy adds a preferred InterPodAffinity term (weight 2).
double Scheduler::score(const Pod& pod, const Node& node,
                        const std::vector<int>& parentNodes) const {
  double cpuFree = freeFraction(node.used.cpu, pod.request.cpu, node.allocatable.cpu);
  double memFree = freeFraction(node.used.memory, pod.request.memory, node.allocatable.memory);
  double leastAllocated = (cpuFree + memFree) / 2 * 100;
  double balanced = (1 - std::abs(cpuFree - memFree) / 2) * 100;
  double affinity = 0;
  if (parentAffinity_ && !parentNodes.empty()) {
    for (int p : parentNodes) {
      const Node& parent = nodes_[static_cast<std::size_t>(p)];
      affinity += &parent == &node ? 100 : (parent.zone == node.zone ? 50 : 0);
    }
    affinity /= static_cast<double>(parentNodes.size());
  }
  return leastAllocated + balanced + 2 * affinity;
}

// kube-scheduler's adaptive percentageOfNodesToScore: stop filtering once this many feasible
// nodes were found, so large clusters are not scanned completely for every pod.
std::size_t Scheduler::nodesToFind() const {
  std::size_t n = nodes_.size();
  if (n < 100) {
    return n;
  }
  double percentage = std::max(5.0, 50.0 - static_cast<double>(n) / 125.0);
  return std::max<std::size_t>(100,
                               static_cast<std::size_t>(static_cast<double>(n) * percentage / 100));
}

int Scheduler::place(const Pod& pod, const std::vector<int>& parentNodes) {
  std::size_t n = nodes_.size();
  std::size_t want = nodesToFind();
  std::size_t found = 0;
  std::size_t scanned = 0;
  int best = -1;
  double bestScore = -1;
  int ties = 0;
  Rng rng(hashKeys(seed_, 51, decisions_++));
  for (; scanned < n && found < want; ++scanned) {
    std::size_t i = (nextStart_ + scanned) % n;
    const Node& node = nodes_[i];
    if (!fits(pod, node)) {
      continue;
    }
    ++found;
    double s = score(pod, node, parentNodes);
    if (s > bestScore + kEpsilon) {
      best = static_cast<int>(i);
      bestScore = s;
      ties = 1;
    } else if (std::abs(s - bestScore) <= kEpsilon &&
               rng.below(static_cast<std::uint64_t>(++ties)) == 0) {
      best = static_cast<int>(i);  // reservoir sampling among equal scores, as kube-scheduler
    }
  }
  nextStart_ = (nextStart_ + scanned) % n;
  return best;
}

// The first filter that rejects every node names the failure, in kube-scheduler's filter order.
std::string Scheduler::rejectingPlugin(const Pod& pod) const {
  bool affinity = false;
  bool taints = false;
  for (const auto& node : nodes_) {
    if (!pod.requiredNodeType.empty() && pod.requiredNodeType != node.nodeType) {
      continue;
    }
    affinity = true;
    taints = taints || std::all_of(node.taints.begin(), node.taints.end(),
                                   [&](const Taint& taint) { return tolerates(pod, taint); });
  }
  if (!affinity) {
    return "NodeAffinity";
  }
  return taints ? "NodeResourcesFit" : "TaintToleration";
}

void Scheduler::bind(Pod& pod, int nodeIndex) {
  Node& node = nodes_[static_cast<std::size_t>(nodeIndex)];
  node.used.cpu += pod.request.cpu;
  node.used.memory += pod.request.memory;
  node.used.gpu += pod.request.gpu;
  node.used.pods += pod.request.pods;
  pod.node = nodeIndex;
  pod.gpus.clear();
  for (std::size_t g = 0;
       g < node.gpuOwner.size() && static_cast<int>(pod.gpus.size()) < pod.request.gpu; ++g) {
    if (node.gpuOwner[g] < 0) {
      node.gpuOwner[g] = pod.id;
      pod.gpus.push_back(static_cast<int>(g));
    }
  }
}

void Scheduler::release(Pod& pod) {
  if (pod.node < 0) {
    return;
  }
  Node& node = nodes_[static_cast<std::size_t>(pod.node)];
  node.used.cpu -= pod.request.cpu;
  node.used.memory -= pod.request.memory;
  node.used.gpu -= pod.request.gpu;
  node.used.pods -= pod.request.pods;
  for (int g : pod.gpus) {
    node.gpuOwner[static_cast<std::size_t>(g)] = -1;
  }
}

}  // namespace dagadvisor::sim
