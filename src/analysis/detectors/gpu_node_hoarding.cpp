#include "analysis/detectors/gpu_node_hoarding.h"

#include <algorithm>
#include <functional>
#include <map>
#include <tuple>

#include "analysis/detectors/detector_util.h"
#include "analysis/packing.h"

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

// The owners of the non-GPU pods on `node`, largest CPU first; all of them in `total`.
std::vector<NonGpuOwner> ownersOn(const ClusterSnapshot& cluster, NodeId node, std::size_t& total) {
  std::map<OwnerKey, OwnerUsage> owners;
  for (PodId id : cluster.podsOn(node)) {
    const Pod& pod = cluster.pod(id);
    if (pod.requests.gpus > 0) {
      continue;
    }
    const std::string kind = pod.owner_kind.empty() ? "Pod" : pod.owner_kind;
    const std::string name = pod.owner_name.empty() ? pod.name : pod.owner_name;
    OwnerUsage& usage = owners[{kind, pod.namespace_, name}];
    ++usage.pods;
    usage.requests += pod.requests;
  }
  std::vector<NonGpuOwner> out;
  for (const auto& [key, usage] : owners) {
    out.push_back({std::get<0>(key), std::get<1>(key), std::get<2>(key), usage.pods,
                   usage.requests.cpu_millis, usage.requests.memory_bytes});
  }
  std::stable_sort(out.begin(), out.end(), [](const NonGpuOwner& a, const NonGpuOwner& b) {
    return a.cpu_millis > b.cpu_millis;
  });
  total = out.size();
  out.resize(std::min(out.size(), GpuNodeHoardingEvidence::kMaxListed));
  return out;
}

std::vector<BlockedGpuPod> matchedPods(const ClusterSnapshot& cluster,
                                       const std::vector<PodId>& pods) {
  std::vector<BlockedGpuPod> out;
  for (std::size_t i = 0; i < pods.size() && i < GpuNodeHoardingEvidence::kMaxListed; ++i) {
    const Pod& pod = cluster.pod(pods[i]);
    BlockedGpuPod& entry = out.emplace_back();
    entry.namespace_ = pod.namespace_;
    entry.pod = pod.name;
    entry.requests = pod.requests;
    if (pod.created) {
      entry.waiting_seconds = std::max(0.0, cluster.at() - *pod.created);
    }
  }
  return out;
}

std::string_view holdName(GpuNodeHold hold) {
  switch (hold) {
    case GpuNodeHold::kMovable:
      return "movable";
    case GpuNodeHold::kMovableUnmatched:
      return "movable-unmatched";
    case GpuNodeHold::kDaemonSets:
      return "daemonsets";
    case GpuNodeHold::kNone:
      break;
  }
  return "share";
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
                {"memory_bytes", pod.requests.memory_bytes}};
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

json gpuDagJson(const GpuDag& dag) {
  json out = json::object();
  dag.scope.writeJson(out);
  out.erase("run");
  out.erase("selector");
  out["runs"] = dag.runs.size();
  out["unfinished_runs"] = dag.unfinished_runs;
  return out;
}

std::string summaryLine(const GpuNodeHoardingEvidence& e) {
  std::string line = formatText(
      "%s: %lld of %lld GPUs free while non-GPU pods request %.0f%% of its CPU and %.0f%% of "
      "its memory; ",
      e.node.c_str(), static_cast<long long>(e.free.gpus),
      static_cast<long long>(e.allocatable.gpus), e.non_gpu_cpu_share * 100,
      e.non_gpu_memory_share * 100);
  if (e.hold == "movable") {
    return line + formatText(
                      "moving its non-DaemonSet pods places %zu pending GPU pod(s) "
                      "(%lld GPUs) here",
                      e.pending_gpu_pods_total, static_cast<long long>(e.gpus_unblocked_by_moving));
  }
  if (e.hold == "movable-unmatched") {
    return line +
           "a pending GPU pod would fit once its non-DaemonSet pods left, but every such "
           "pod is placed on another GPU node";
  }
  if (e.hold == "daemonsets") {
    return line + formatText(
                      "only DaemonSets stand in the way: a pending GPU pod would fit if "
                      "they requested %lld mCPU and %lld MiB less here",
                      static_cast<long long>(e.daemonset_excess.cpu_millis),
                      static_cast<long long>(e.daemonset_excess.memory_bytes >> 20));
  }
  return line + "no pending GPU pod is held back";
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
          {"hold", hold},
          {"daemonset_cpu_millis", non_gpu.cpu_millis - movable.cpu_millis},
          {"daemonset_memory_bytes", non_gpu.memory_bytes - movable.memory_bytes},
          {"movable_cpu_millis", movable.cpu_millis},
          {"movable_memory_bytes", movable.memory_bytes},
          {"gpus_unblocked_by_moving", gpus_unblocked_by_moving},
          {"daemonset_excess_cpu_millis", daemonset_excess.cpu_millis},
          {"daemonset_excess_memory_bytes", daemonset_excess.memory_bytes},
          {"non_gpu_owners", jsonArrayOf(non_gpu_owners, ownerJson)},
          {"non_gpu_owners_total", non_gpu_owners_total},
          {"pending_gpu_pods", jsonArrayOf(pending_gpu_pods, blockedPodJson)},
          {"pending_gpu_pods_total", pending_gpu_pods_total},
          {"diagnosis", diagnosis.toJson()},
          {"pods_to_move", pods_to_move},
          {"pods_to_move_with_room", pods_to_move_with_room},
          {"gpu_dags", jsonArrayOf(gpu_dags, gpuDagJson)}};
}

const DetectorInfo& GpuNodeHoarding::info() const {
  static const DetectorInfo kInfo{
      GpuNodeHoardingEvidence::kKind,
      "GPU nodes whose CPU or memory is taken by non-GPU pods while GPUs sit free"};
  return kInfo;
}

namespace {

GpuNodeHoardingEvidence evidenceOf(const ClusterSnapshot& cluster, const GpuNodeDiagnosis& held,
                                   const DiagnosisCounts& counts) {
  const model::Node& node = cluster.node(held.node);
  GpuNodeHoardingEvidence e;
  e.node = node.name;
  e.hold = std::string(holdName(held.hold));
  e.allocatable = node.allocatable;
  e.free = cluster.freeOn(held.node);
  e.non_gpu = held.non_gpu;
  e.movable = held.movable;
  e.non_gpu_cpu_share = share(held.non_gpu.cpu_millis, node.allocatable.cpu_millis);
  e.non_gpu_memory_share = share(held.non_gpu.memory_bytes, node.allocatable.memory_bytes);
  e.taints = node.taints;
  e.gpus_unblocked_by_moving = held.gpus_unblocked;
  e.daemonset_excess = held.daemonset_excess;
  e.non_gpu_owners = ownersOn(cluster, held.node, e.non_gpu_owners_total);
  e.pending_gpu_pods = matchedPods(cluster, held.matched);
  e.pending_gpu_pods_total = held.matched.size();
  e.diagnosis = counts;
  return e;
}

void emit(GpuNodeHoardingEvidence evidence, FindingSink& out) {
  const Severity severity = evidence.hoarded() ? Severity::kWarning : Severity::kInfo;
  std::string target = "node/" + evidence.node;
  std::string summary = summaryLine(evidence);
  const auto impact = static_cast<double>(evidence.gpus_unblocked_by_moving);
  Finding finding = findingOf(std::move(evidence));
  finding.severity = severity;
  finding.target = std::move(target);
  finding.summary = std::move(summary);
  finding.impact = impact;
  out.emit(std::move(finding));
}

// A GPU node with free GPUs and no pending GPU pod held back, whose non-GPU pods request at
// least min_non_gpu_share of its CPU or memory: reported as info when asked for.
std::optional<GpuNodeDiagnosis> largeHold(const ClusterSnapshot& cluster, NodeId id,
                                          const analysis::GpuNodeHoardingSettings& params) {
  const model::Node& node = cluster.node(id);
  if (!node.hasGpus() || node.unschedulable || cluster.freeOn(id).gpus < params.min_free_gpus) {
    return std::nullopt;
  }
  GpuNodeDiagnosis held;
  held.node = id;
  for (PodId pod : cluster.podsOn(id)) {
    const Pod& p = cluster.pod(pod);
    if (p.requests.gpus == 0) {
      held.non_gpu += p.requests;
      held.movable += p.owner_kind == "DaemonSet" ? ResourceVector{} : p.requests;
    }
  }
  const double largest = std::max(share(held.non_gpu.cpu_millis, node.allocatable.cpu_millis),
                                  share(held.non_gpu.memory_bytes, node.allocatable.memory_bytes));
  if (largest < params.min_non_gpu_share) {
    return std::nullopt;
  }
  return held;
}

// The pods moving off the hoarded nodes, and whether the nodes without GPUs have room for them
// all: the GPUs a move unblocks are a gain only if the moved pods land somewhere.
std::pair<std::size_t, std::size_t> roomForMovedPods(const ClusterSnapshot& cluster,
                                                     const PendingDiagnosis& diagnosis) {
  std::vector<ResourceVector> pods;
  for (const GpuNodeDiagnosis& held : diagnosis.gpu_nodes) {
    if (held.hold != GpuNodeHold::kMovable) {
      continue;
    }
    for (PodId id : cluster.podsOn(held.node)) {
      const Pod& p = cluster.pod(id);
      if (p.requests.gpus == 0 && p.owner_kind != "DaemonSet") {
        pods.push_back(p.requests);
      }
    }
  }
  std::vector<ResourceVector> bins;
  ResourceVector scale;
  for (NodeId id = 0; id < cluster.nodes().size(); ++id) {
    const model::Node& node = cluster.node(id);
    if (!node.hasGpus() && !node.unschedulable) {
      bins.push_back(cluster.freeOn(id));
      scale += node.allocatable;
    }
  }
  const std::size_t total = pods.size();
  return {total, podsFittingTogether(std::move(pods), std::move(bins), scale)};
}

bool anyTaskPod(const graph::RunGraph& rg, const ClusterSnapshot& cluster,
                const std::function<bool(const Pod&)>& holds) {
  for (model::TaskIndex t = 0; t < rg.run->tasks.size(); ++t) {
    const Pod* pod = taskPod(rg, t, cluster);
    if (pod != nullptr && holds(*pod)) {
      return true;
    }
  }
  return false;
}

// The DAGs whose runs request GPUs, each with every run seen and the scope of its latest.
std::vector<GpuDag> gpuDags(const AnalysisInput& input) {
  const ClusterSnapshot& cluster = input.cluster;
  std::map<std::pair<std::string, std::string>, std::pair<GpuDag, UnixSeconds>> by_dag;
  for (const graph::RunGraph& rg : input.runs) {
    if (rg.run == nullptr ||
        !anyTaskPod(rg, cluster, [](const Pod& p) { return p.requests.gpus > 0; })) {
      continue;
    }
    const model::WorkflowRun& run = *rg.run;
    const auto [it, first] = by_dag.try_emplace({run.namespace_, run.dag});
    auto& [dag, latest] = it->second;
    if (first || rg.first_created >= latest) {
      latest = rg.first_created;
      dag.scope = runScope(run);
    }
    dag.run_selectors.push_back(run.selector);
    dag.runs.push_back(run.run);
    if (anyTaskPod(rg, cluster, [](const Pod& p) {
          return p.phase == model::PodPhase::kPending || p.phase == model::PodPhase::kRunning;
        })) {
      dag.unfinished_runs.push_back(run.run);
    }
  }
  std::vector<GpuDag> out;
  for (auto& [key, dag] : by_dag) {
    out.push_back(std::move(dag.first));
  }
  return out;
}

}  // namespace

void GpuNodeHoarding::analyze(const AnalysisInput& input, FindingSink& out) const {
  if (noNodesToJudge(input, out)) {
    return;
  }
  const auto& params = input.config.detectors.get<analysis::GpuNodeHoardingSettings>();
  const ClusterSnapshot& cluster = input.cluster;
  const PendingDiagnosis& diagnosis = input.pendingDiagnosis();
  const DiagnosisCounts counts = diagnosis.summary();
  std::vector<bool> reported(cluster.nodes().size(), false);
  const auto [to_move, with_room] = roomForMovedPods(cluster, diagnosis);
  const std::vector<GpuDag> dags =
      diagnosis.gpu_nodes.empty() ? std::vector<GpuDag>{} : gpuDags(input);
  for (const GpuNodeDiagnosis& held : diagnosis.gpu_nodes) {
    reported[held.node] = true;
    GpuNodeHoardingEvidence evidence = evidenceOf(cluster, held, counts);
    evidence.pods_to_move = to_move;
    evidence.pods_to_move_with_room = with_room;
    evidence.gpu_dags = dags;
    emit(std::move(evidence), out);
  }
  if (params.require_pending_gpu_pods) {
    return;
  }
  for (NodeId id = 0; id < cluster.nodes().size(); ++id) {
    if (!reported[id]) {
      if (const auto held = largeHold(cluster, id, params)) {
        emit(evidenceOf(cluster, *held, counts), out);
      }
    }
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
