#include "analysis/detectors/gpu_node_hoarding.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <tuple>

#include "analysis/detectors/detector_util.h"

namespace dagadvisor::analysis {
namespace {

using model::ClusterSnapshot;
using model::NodeId;
using model::Pod;
using model::PodId;
using model::ResourceVector;
using nlohmann::json;

struct OwnerUsage {
  std::size_t pods = 0;
  ResourceVector requests;
};
using OwnerKey = std::tuple<std::string, std::string, std::string>;  // kind, namespace, name

struct NodeHold {
  ResourceVector non_gpu;  // requested by pods asking for no GPU
  ResourceVector movable;  // the part not held by DaemonSets, which run on every node anyway
  std::map<OwnerKey, OwnerUsage> owners;
};

NodeHold nonGpuHold(const ClusterSnapshot& cluster, NodeId node) {
  NodeHold hold;
  for (PodId id : cluster.podsOn(node)) {
    const Pod& pod = cluster.pod(id);
    if (pod.requests.gpus > 0) {
      continue;
    }
    hold.non_gpu += pod.requests;
    if (pod.owner_kind != "DaemonSet") {
      hold.movable += pod.requests;
    }
    const std::string kind = pod.owner_kind.empty() ? "Pod" : pod.owner_kind;
    const std::string name = pod.owner_name.empty() ? pod.name : pod.owner_name;
    OwnerUsage& usage = hold.owners[{kind, pod.namespace_, name}];
    ++usage.pods;
    usage.requests += pod.requests;
  }
  return hold;
}

ResourceVector cpuAndMemory(const ResourceVector& held) {
  return {held.cpu_millis, held.memory_bytes, 0};
}

// A pending GPU pod is blocked by the hold when the node has the GPUs it asks for but not the
// CPU or memory, and would have both if the non-GPU pods were elsewhere.
bool blockedByHold(const Pod& pod, const ResourceVector& free, const ResourceVector& held) {
  return pod.requests.gpus <= free.gpus && !free.fits(pod.requests) &&
         (free + cpuAndMemory(held)).fits(pod.requests);
}

json ownersJson(const NodeHold& hold) {
  std::vector<std::pair<OwnerKey, OwnerUsage>> owners(hold.owners.begin(), hold.owners.end());
  std::stable_sort(owners.begin(), owners.end(), [](const auto& a, const auto& b) {
    return a.second.requests.cpu_millis > b.second.requests.cpu_millis;
  });
  json out = json::array();
  for (const auto& [key, usage] : owners) {
    out.push_back({{"kind", std::get<0>(key)},
                   {"namespace", std::get<1>(key)},
                   {"name", std::get<2>(key)},
                   {"pods", usage.pods},
                   {"cpu_millis", usage.requests.cpu_millis},
                   {"memory_bytes", usage.requests.memory_bytes}});
  }
  return out;
}

// Places the blocked pods, largest GPU demand first, into the room moving the non-DaemonSet
// pods away would leave; the GPUs they take are the ones the move really unblocks.
std::int64_t gpusUnblocked(const ClusterSnapshot& cluster, std::vector<PodId> blocked,
                           ResourceVector room) {
  std::stable_sort(blocked.begin(), blocked.end(), [&](PodId a, PodId b) {
    return cluster.pod(a).requests.gpus > cluster.pod(b).requests.gpus;
  });
  std::int64_t gpus = 0;
  for (PodId id : blocked) {
    if (room.fits(cluster.pod(id).requests)) {
      room -= cluster.pod(id).requests;
      gpus += cluster.pod(id).requests.gpus;
    }
  }
  return gpus;
}

json pendingJson(const ClusterSnapshot& cluster, const std::vector<PodId>& pods,
                 const ResourceVector& movable_room) {
  json out = json::array();
  for (PodId id : pods) {
    const Pod& pod = cluster.pod(id);
    json entry = {{"namespace", pod.namespace_},
                  {"pod", pod.name},
                  {"gpus", pod.requests.gpus},
                  {"cpu_millis", pod.requests.cpu_millis},
                  {"memory_bytes", pod.requests.memory_bytes},
                  {"fits_if_movable_pods_leave", movable_room.fits(pod.requests)}};
    if (pod.created) {
      entry["waiting_seconds"] = std::max(0.0, cluster.at() - *pod.created);
    }
    out.push_back(std::move(entry));
  }
  return out;
}

json taintsJson(const model::Node& node) {
  json out = json::array();
  for (const model::Taint& t : node.taints) {
    out.push_back({{"key", t.key}, {"value", t.value}, {"effect", t.effect}});
  }
  return out;
}

std::string summaryLine(const model::Node& node, std::int64_t free_gpus, double cpu_share,
                        double memory_share, std::size_t blocked) {
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "%s: %lld of %lld GPUs free while non-GPU pods request %.0f%% of its CPU and "
                "%.0f%% of its memory; %zu pending GPU pod(s) do not fit",
                node.name.c_str(), static_cast<long long>(free_gpus),
                static_cast<long long>(node.allocatable.gpus), cpu_share * 100, memory_share * 100,
                blocked);
  return buf;
}

}  // namespace

const DetectorInfo& GpuNodeHoarding::info() const {
  static const DetectorInfo kInfo{
      "gpu-node-hoarding",
      "GPU nodes whose CPU or memory is taken by non-GPU pods while GPUs sit free"};
  return kInfo;
}

void GpuNodeHoarding::analyze(const AnalysisInput& input, FindingSink& out) const {
  if (noNodesToJudge(input, out)) {
    return;
  }
  const auto& params = input.config.detectors.gpu_node_hoarding;
  const ClusterSnapshot& cluster = input.cluster;
  std::vector<PodId> pending_gpu;
  for (PodId id : cluster.pendingPods()) {
    if (cluster.pod(id).requests.gpus > 0) {
      pending_gpu.push_back(id);
    }
  }
  for (NodeId id = 0; id < cluster.nodes().size(); ++id) {
    const model::Node& node = cluster.node(id);
    const ResourceVector free = cluster.freeOn(id);
    if (!node.hasGpus() || node.unschedulable || free.gpus < params.min_free_gpus) {
      continue;
    }
    const NodeHold hold = nonGpuHold(cluster, id);
    const double cpu_share = share(hold.non_gpu.cpu_millis, node.allocatable.cpu_millis);
    const double memory_share = share(hold.non_gpu.memory_bytes, node.allocatable.memory_bytes);
    std::vector<PodId> blocked;
    for (PodId pod : pending_gpu) {
      if (blockedByHold(cluster.pod(pod), free, hold.non_gpu)) {
        blocked.push_back(pod);
      }
    }
    // A blocked GPU pod is proof whatever the share; without one, only a large hold is worth
    // reporting, and only when asked for.
    if (blocked.empty() && (params.require_pending_gpu_pods ||
                            std::max(cpu_share, memory_share) < params.min_non_gpu_share)) {
      continue;
    }
    const ResourceVector movable_room = free + cpuAndMemory(hold.movable);
    std::int64_t blocked_gpus = 0;
    for (PodId pod : blocked) {
      blocked_gpus += cluster.pod(pod).requests.gpus;
    }
    Finding finding;
    finding.kind = std::string(info().kind);
    finding.severity = blocked.empty() ? Severity::kInfo : Severity::kWarning;
    finding.target = "node/" + node.name;
    finding.summary = summaryLine(node, free.gpus, cpu_share, memory_share, blocked.size());
    finding.impact = static_cast<double>(free.gpus);
    finding.evidence = {
        {"node", node.name},
        {"gpus_allocatable", node.allocatable.gpus},
        {"free_gpus", free.gpus},
        {"cpu_allocatable_millis", node.allocatable.cpu_millis},
        {"memory_allocatable_bytes", node.allocatable.memory_bytes},
        {"non_gpu_cpu_millis", hold.non_gpu.cpu_millis},
        {"non_gpu_memory_bytes", hold.non_gpu.memory_bytes},
        {"non_gpu_cpu_share", cpu_share},
        {"non_gpu_memory_share", memory_share},
        {"free_cpu_millis", free.cpu_millis},
        {"free_memory_bytes", free.memory_bytes},
        {"taints", taintsJson(node)},
        {"daemonset_cpu_millis", hold.non_gpu.cpu_millis - hold.movable.cpu_millis},
        {"daemonset_memory_bytes", hold.non_gpu.memory_bytes - hold.movable.memory_bytes},
        {"movable_cpu_millis", hold.movable.cpu_millis},
        {"movable_memory_bytes", hold.movable.memory_bytes},
        {"stranded_gpus", std::min(free.gpus, blocked_gpus)},
        {"gpus_unblocked_by_moving", gpusUnblocked(cluster, blocked, movable_room)},
        {"non_gpu_owners", ownersJson(hold)},
        {"pending_gpu_pods", pendingJson(cluster, blocked, movable_room)}};
    out.emit(std::move(finding));
  }
}

}  // namespace dagadvisor::analysis
