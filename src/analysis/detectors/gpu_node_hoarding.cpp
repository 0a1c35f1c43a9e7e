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

std::vector<NonGpuOwner> ownersOf(const NodeHold& hold) {
  std::vector<NonGpuOwner> out;
  for (const auto& [key, usage] : hold.owners) {
    out.push_back({std::get<0>(key), std::get<1>(key), std::get<2>(key), usage.pods,
                   usage.requests.cpu_millis, usage.requests.memory_bytes});
  }
  std::stable_sort(out.begin(), out.end(), [](const NonGpuOwner& a, const NonGpuOwner& b) {
    return a.cpu_millis > b.cpu_millis;
  });
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

std::vector<BlockedGpuPod> blockedPods(const ClusterSnapshot& cluster,
                                       const std::vector<PodId>& pods,
                                       const ResourceVector& movable_room) {
  std::vector<BlockedGpuPod> out;
  for (PodId id : pods) {
    const Pod& pod = cluster.pod(id);
    BlockedGpuPod& entry = out.emplace_back();
    entry.namespace_ = pod.namespace_;
    entry.pod = pod.name;
    entry.requests = pod.requests;
    entry.fits_if_movable_pods_leave = movable_room.fits(pod.requests);
    if (pod.created) {
      entry.waiting_seconds = std::max(0.0, cluster.at() - *pod.created);
    }
  }
  return out;
}

json ownerJson(const NonGpuOwner& owner) {
  return {
      {"kind", owner.kind}, {"namespace", owner.namespace_},  {"name", owner.name},
      {"pods", owner.pods}, {"cpu_millis", owner.cpu_millis}, {"memory_bytes", owner.memory_bytes}};
}

json blockedPodJson(const BlockedGpuPod& pod) {
  json entry = {{"namespace", pod.namespace_},
                {"pod", pod.pod},
                {"gpus", pod.requests.gpus},
                {"cpu_millis", pod.requests.cpu_millis},
                {"memory_bytes", pod.requests.memory_bytes},
                {"fits_if_movable_pods_leave", pod.fits_if_movable_pods_leave}};
  if (pod.waiting_seconds) {
    entry["waiting_seconds"] = *pod.waiting_seconds;
  }
  return entry;
}

json taintsJson(const std::vector<model::Taint>& taints) {
  json out = json::array();
  for (const model::Taint& t : taints) {
    out.push_back({{"key", t.key}, {"value", t.value}, {"effect", t.effect}});
  }
  return out;
}

template <typename T, typename Render>
json arrayOf(const std::vector<T>& items, Render render) {
  json out = json::array();
  for (const T& item : items) {
    out.push_back(render(item));
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

json GpuNodeHoardingEvidence::toJson() const {
  return {{"node", node},
          {"gpus_allocatable", allocatable.gpus},
          {"free_gpus", free.gpus},
          {"cpu_allocatable_millis", allocatable.cpu_millis},
          {"memory_allocatable_bytes", allocatable.memory_bytes},
          {"non_gpu_cpu_millis", non_gpu.cpu_millis},
          {"non_gpu_memory_bytes", non_gpu.memory_bytes},
          {"non_gpu_cpu_share", non_gpu_cpu_share},
          {"non_gpu_memory_share", non_gpu_memory_share},
          {"free_cpu_millis", free.cpu_millis},
          {"free_memory_bytes", free.memory_bytes},
          {"taints", taintsJson(taints)},
          {"daemonset_cpu_millis", non_gpu.cpu_millis - movable.cpu_millis},
          {"daemonset_memory_bytes", non_gpu.memory_bytes - movable.memory_bytes},
          {"movable_cpu_millis", movable.cpu_millis},
          {"movable_memory_bytes", movable.memory_bytes},
          {"stranded_gpus", stranded_gpus},
          {"gpus_unblocked_by_moving", gpus_unblocked_by_moving},
          {"non_gpu_owners", arrayOf(non_gpu_owners, ownerJson)},
          {"pending_gpu_pods", arrayOf(pending_gpu_pods, blockedPodJson)}};
}

const DetectorInfo& GpuNodeHoarding::info() const {
  static const DetectorInfo kInfo{
      GpuNodeHoardingEvidence::kKind,
      "GPU nodes whose CPU or memory is taken by non-GPU pods while GPUs sit free"};
  return kInfo;
}

void GpuNodeHoarding::analyze(const AnalysisInput& input, FindingSink& out) const {
  if (noNodesToJudge(input, out)) {
    return;
  }
  const auto& params = input.config.detectors.get<analysis::GpuNodeHoardingSettings>();
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
    GpuNodeHoardingEvidence evidence;
    evidence.node = node.name;
    evidence.allocatable = node.allocatable;
    evidence.free = free;
    evidence.non_gpu = hold.non_gpu;
    evidence.movable = hold.movable;
    evidence.non_gpu_cpu_share = cpu_share;
    evidence.non_gpu_memory_share = memory_share;
    evidence.taints = node.taints;
    evidence.stranded_gpus = std::min(free.gpus, blocked_gpus);
    evidence.gpus_unblocked_by_moving = gpusUnblocked(cluster, blocked, movable_room);
    evidence.non_gpu_owners = ownersOf(hold);
    evidence.pending_gpu_pods = blockedPods(cluster, blocked, movable_room);
    Finding finding = findingOf(std::move(evidence));
    finding.severity = blocked.empty() ? Severity::kInfo : Severity::kWarning;
    finding.target = "node/" + node.name;
    finding.summary = summaryLine(node, free.gpus, cpu_share, memory_share, blocked.size());
    finding.impact = static_cast<double>(free.gpus);
    out.emit(std::move(finding));
  }
}

std::vector<config::Field> GpuNodeHoardingSettings::fields() {
  return {
      {"enabled", &enabled, config::Rule::kNone, "Turn this check on or off."},
      {"min_non_gpu_share", &min_non_gpu_share, config::Rule::kShare,
       "A GPU node is reported when a GPU pod is pending that would fit on it if the pods without "
       "GPUs were elsewhere: they hold the CPU or memory it needs. Such a node is a warning "
       "whatever share those pods hold. With no GPU pod pending, a node is reported (as "
       "information) only when require_pending_gpu_pods is false and pods without GPUs request at "
       "least this share of its CPU or memory: a number from 0 to 1 (0.5 is half)."},
      {"min_free_gpus", &min_free_gpus, config::Rule::kNonNegative,
       "In both cases at least this many of the node's GPUs must be unallocated."},
      {"require_pending_gpu_pods", &require_pending_gpu_pods, config::Rule::kNone,
       "When true (the default), nodes are only reported while a GPU pod is pending that they "
       "block; set false to also see nodes that merely hold GPU-node capacity."},
      {"taint_key", &taint_key, config::Rule::kNonEmpty,
       "The taint the recommended fix puts on GPU nodes, so that only pods that tolerate it (GPU "
       "workloads) are placed there."},
  };
}

}  // namespace dagadvisor::analysis
