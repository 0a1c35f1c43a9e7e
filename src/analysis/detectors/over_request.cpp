#include "analysis/detectors/over_request.h"

#include <algorithm>
#include <cmath>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "analysis/detectors/detector_util.h"
#include "common/view_hash.h"

namespace dagadvisor::analysis {
namespace {

using model::ClusterSnapshot;
using model::Pod;
using nlohmann::json;

constexpr std::int64_t kCpuStep = 10;                // millicores
constexpr std::int64_t kMemoryStep = 1024LL * 1024;  // one Mi
constexpr std::size_t kMaxListedPods = OverRequestEvidence::kMaxListedPods;
// Only to rank workloads by what they free: memory counted at 4 GiB per core, the ratio of a
// general-purpose node.
constexpr double kRankGiBPerCore = 4;
constexpr double kGiB = 1024.0 * 1024 * 1024;

// Up to the next whole step, but a value a millionth of a step past one stays on it: backends
// sum in different orders (Prometheus 3's compensated sums give 1.2000000000000002 cores where
// Prometheus 2 gives 1.2), and the last bit must not move a request by a whole step.
std::int64_t roundUp(double value, std::int64_t step) {
  constexpr double kLastBits = 1e-6;
  const double steps = std::ceil(value / static_cast<double>(step) - kLastBits);
  return std::max<std::int64_t>(step, static_cast<std::int64_t>(steps) * step);
}

using OwnerKey = ViewTriple;  // namespace, owner kind, owner name

bool contended(const ClusterSnapshot& cluster, model::NodeId id, double min_share) {
  const auto& alloc = cluster.node(id).allocatable;
  const auto& req = cluster.requestedOn(id);
  return share(req.cpu_millis, alloc.cpu_millis) >= min_share ||
         share(req.memory_bytes, alloc.memory_bytes) >= min_share;
}

struct Owner {
  model::ResourceVector requested;    // largest request of one pod
  model::ResourceVector recommended;  // largest right-sized request of one pod
  model::ResourceVector reclaimable;  // over all its pods on contended nodes
  model::ResourceVector needed;       // of reclaimable, what pending pods need now
  double samples = 0;                 // fewest samples of one pod
  std::size_t pod_count = 0;
  std::vector<OverRequestedPod> pods;  // the first kMaxListedPods, to keep findings small
  std::vector<model::ContainerRequests> containers;  // of its largest-requesting pod
};

// Right-sized requests of an over-requested pod, or nullopt when it uses enough of both.
std::optional<model::ResourceVector> rightSized(const Pod& pod,
                                                const analysis::OverRequestSettings& params) {
  const model::ObservedUsage& use = *pod.usage;
  const double headroom = 1 + params.headroom;
  const double cpu_used = use.cpu_cores * 1000;
  const bool cpu_over = pod.requests.cpu_millis >= params.min_cpu_millis &&
                        cpu_used <= params.max_usage_share * pod.requests.cpu_millis;
  const bool memory_over = pod.requests.memory_bytes > 0 &&
                           use.memory_bytes <= params.max_usage_share * pod.requests.memory_bytes;
  if (!cpu_over && !memory_over) {
    return std::nullopt;
  }
  model::ResourceVector sized = pod.requests;
  if (cpu_over) {
    sized.cpu_millis = std::min(pod.requests.cpu_millis, roundUp(cpu_used * headroom, kCpuStep));
  }
  if (memory_over) {
    sized.memory_bytes =
        std::min(pod.requests.memory_bytes, roundUp(use.memory_bytes * headroom, kMemoryStep));
  }
  return sized;
}

// An over-requested pod on a contended node and its right-sized requests.
struct SizedPod {
  const Pod* pod;
  model::ResourceVector sized;
};

// The distinct request shapes of the pending pods: pods of one workload share a shape, so the
// node test runs per shape, not per pod.
std::vector<model::ResourceVector> pendingShapes(const ClusterSnapshot& cluster) {
  std::vector<model::ResourceVector> shapes;
  for (model::PodId id : cluster.pendingPods()) {
    const model::ResourceVector& r = cluster.pod(id).requests;
    if (std::find(shapes.begin(), shapes.end(), r) == shapes.end()) {
      shapes.push_back(r);
    }
  }
  return shapes;
}

// Which of the resources freed on a node pending pods need there.
struct Need {
  bool cpu = false;
  bool memory = false;
};

// Which freed resources pending pods need on a node (free capacity `free`, `freed` by
// right-sizing all its over-requested pods): those a pending shape lacks now, counted only for
// shapes that fit once freed. A GPU pod short of GPUs, or of memory nobody frees, needs no CPU.
Need neededOn(const model::Node& node, const model::ResourceVector& free,
              const model::ResourceVector& freed,
              const std::vector<model::ResourceVector>& shapes) {
  Need need;
  if (node.unschedulable) {
    return need;
  }
  for (const model::ResourceVector& shape : shapes) {
    if (free.fits(shape) || !(free + freed).fits(shape)) {
      continue;
    }
    need.cpu = need.cpu || shape.cpu_millis > free.cpu_millis;
    need.memory = need.memory || shape.memory_bytes > free.memory_bytes;
  }
  return need;
}

// Right-sizes every pod of `candidates` on its node, and returns by node which of the freed
// resources pending pods need (neededOn).
std::vector<Need> neededByNode(const ClusterSnapshot& cluster,
                               const std::vector<SizedPod>& candidates) {
  std::vector<model::ResourceVector> freed(cluster.nodes().size());
  for (const SizedPod& c : candidates) {
    freed[c.pod->node] += c.pod->requests - c.sized;
  }
  const std::vector<model::ResourceVector> shapes = pendingShapes(cluster);
  std::vector<Need> need(freed.size());
  for (model::NodeId id = 0; id < freed.size() && !shapes.empty(); ++id) {
    if (freed[id] != model::ResourceVector{}) {
      need[id] = neededOn(cluster.node(id), cluster.freeOn(id), freed[id], shapes);
    }
  }
  return need;
}

void add(Owner& owner, const Pod& pod, const model::Node& node, const model::ResourceVector& sized,
         Need need) {
  const model::ResourceVector freed = pod.requests - sized;
  const model::ResourceVector needed{need.cpu ? freed.cpu_millis : 0,
                                     need.memory ? freed.memory_bytes : 0, 0};
  owner.needed += needed;
  auto max = [](model::ResourceVector& a, const model::ResourceVector& b) {
    a = {std::max(a.cpu_millis, b.cpu_millis), std::max(a.memory_bytes, b.memory_bytes), a.gpus};
  };
  if (owner.containers.empty() || pod.requests.cpu_millis > owner.requested.cpu_millis) {
    owner.containers = pod.containers;
  }
  max(owner.requested, pod.requests);
  max(owner.recommended, sized);
  owner.reclaimable += pod.requests - sized;
  owner.samples =
      owner.pod_count++ == 0 ? pod.usage->samples : std::min(owner.samples, pod.usage->samples);
  if (owner.pods.size() >= kMaxListedPods) {
    return;
  }
  owner.pods.push_back({pod.name, node.name, pod.requests, pod.usage->cpu_cores * 1000,
                        pod.usage->memory_bytes, pod.usage->samples, needed});
}

json podJson(const OverRequestedPod& pod) {
  return {{"pod", pod.pod},
          {"node", pod.node},
          {"cpu_requested_millis", pod.requests.cpu_millis},
          {"cpu_used_millis", pod.cpu_used_millis},
          {"memory_requested_bytes", pod.requests.memory_bytes},
          {"memory_used_bytes", pod.memory_used_bytes},
          {"samples", pod.samples},
          {"needed_cpu_millis", pod.needed.cpu_millis},
          {"needed_memory_bytes", pod.needed.memory_bytes}};
}

// The finding of one owner's over-requested pods.
Finding ownerFinding(const OwnerKey& key, Owner& owner, const analysis::OverRequestSettings& params,
                     std::size_t pending_pods) {
  OverRequestEvidence evidence;
  evidence.namespace_ = std::string(std::get<0>(key));
  evidence.owner_kind = std::string(std::get<1>(key));
  evidence.owner_name = std::string(std::get<2>(key));
  evidence.requested = owner.requested;
  evidence.recommended = owner.recommended;
  evidence.containers = owner.containers;
  evidence.reclaimable = owner.reclaimable;
  evidence.needed = owner.needed;
  evidence.pending_pods = pending_pods;
  evidence.min_samples = owner.samples;
  evidence.pod_count = owner.pod_count;
  evidence.headroom = params.headroom;
  evidence.pods = std::move(owner.pods);
  const std::string& ns = evidence.namespace_;
  const std::string& kind = evidence.owner_kind;
  const std::string& name = evidence.owner_name;
  const std::string target = "workload/" + ns + "/" + kind + "/" + name;
  const bool frees_needed = owner.needed != model::ResourceVector{};
  const std::string summary = formatText(
      "%s %s/%s: %zu pod(s) on full nodes request %lldm CPU / %lld MiB but need %lldm / %lld "
      "MiB%s",
      kind.c_str(), ns.c_str(), name.c_str(), owner.pod_count,
      static_cast<long long>(owner.requested.cpu_millis),
      static_cast<long long>(owner.requested.memory_bytes / kMemoryStep),
      static_cast<long long>(owner.recommended.cpu_millis),
      static_cast<long long>(owner.recommended.memory_bytes / kMemoryStep),
      frees_needed ? "" : "; that frees nothing pending pods need now");
  Finding finding = findingOf(std::move(evidence));
  finding.severity = Severity::kInfo;
  finding.target = target;
  finding.summary = summary;
  finding.impact = static_cast<double>(owner.needed.cpu_millis) / 1000 +
                   static_cast<double>(owner.needed.memory_bytes) / kGiB / kRankGiBPerCore;
  return finding;
}

}  // namespace

json OverRequestEvidence::toJson() const {
  json listed = json::array();
  for (const OverRequestedPod& pod : pods) {
    listed.push_back(podJson(pod));
  }
  return {{"namespace", namespace_},
          {"owner_kind", owner_kind},
          {"owner_name", owner_name},
          {"requested_cpu_millis", requested.cpu_millis},
          {"requested_memory_bytes", requested.memory_bytes},
          {"recommended_cpu_millis", recommended.cpu_millis},
          {"recommended_memory_bytes", recommended.memory_bytes},
          {"reclaimable_cpu_millis", reclaimable.cpu_millis},
          {"reclaimable_memory_bytes", reclaimable.memory_bytes},
          {"needed_cpu_millis", needed.cpu_millis},
          {"needed_memory_bytes", needed.memory_bytes},
          {"pending_pods", pending_pods},
          {"min_samples", min_samples},
          {"pod_count", pod_count},
          {"headroom", headroom},
          {"pods", std::move(listed)}};
}

const DetectorInfo& OverRequest::info() const {
  static const DetectorInfo kInfo{OverRequestEvidence::kKind,
                                  "Pods on nearly full nodes requesting far more than they use"};
  return kInfo;
}

void OverRequest::analyze(const AnalysisInput& input, FindingSink& out) const {
  if (noNodesToJudge(input, out)) {
    return;
  }
  const auto& params = input.config.detectors.get<analysis::OverRequestSettings>();
  const ClusterSnapshot& cluster = input.cluster;
  // Views into the pods, hashed: a key per pod without building three strings for it.
  std::unordered_map<OwnerKey, Owner, ViewTripleHash> owners;
  std::size_t on_full_nodes = 0;
  std::size_t sampled = 0;
  std::vector<SizedPod> candidates;
  // One pass over the pods in memory order: walking them node by node jumps through the whole
  // pod table, a cache miss per pod on a large cluster.
  std::vector<bool> full(cluster.nodes().size());
  for (model::NodeId id = 0; id < cluster.nodes().size(); ++id) {
    full[id] = contended(cluster, id, params.min_node_requested_share);
  }
  for (const Pod& pod : cluster.pods()) {
    if (!pod.holdsResources() || pod.node >= full.size() || !full[pod.node]) {
      continue;
    }
    ++on_full_nodes;
    // Too few samples say nothing about a peak: no advice rather than a wrong one.
    if (!pod.usage || pod.usage->samples < params.min_samples) {
      continue;
    }
    ++sampled;
    if (const auto sized = rightSized(pod, params)) {
      candidates.push_back({&pod, *sized});
    }
  }
  const std::vector<Need> need = neededByNode(cluster, candidates);
  for (const SizedPod& c : candidates) {
    const Pod& pod = *c.pod;
    add(owners[{pod.namespace_, pod.owner_kind.empty() ? std::string_view("Pod") : pod.owner_kind,
                pod.owner_name.empty() ? pod.name : pod.owner_name}],
        pod, cluster.node(pod.node), c.sized, need[pod.node]);
  }
  if (on_full_nodes > 0 && sampled == 0) {
    out.noAdvice(
        formatText("none of the %zu pod(s) on nearly full nodes has %d or more usage "
                   "samples (cAdvisor container metrics)",
                   on_full_nodes, params.min_samples));
  }
  // Findings in owner order, whatever the hash order.
  std::vector<std::pair<const OwnerKey, Owner>*> sorted;
  sorted.reserve(owners.size());
  for (auto& entry : owners) {
    sorted.push_back(&entry);
  }
  std::sort(sorted.begin(), sorted.end(),
            [](const auto* a, const auto* b) { return a->first < b->first; });
  for (auto* entry : sorted) {
    out.emit(ownerFinding(entry->first, entry->second, params, cluster.pendingPods().size()));
  }
}

std::vector<config::Field> OverRequestSettings::fields() {
  return {
      {"enabled", &enabled, config::Rule::kNone, "Turn this check on or off."},
      {"min_node_requested_share", &min_node_requested_share, config::Rule::kShare,
       "Only nodes whose requested CPU or memory is at least this share of what they can give."},
      {"max_usage_share", &max_usage_share, config::Rule::kShare,
       "A pod is over-requested when its observed use is at most this share of its request..."},
      {"min_samples", &min_samples, config::Rule::kNonNegative,
       "...measured over at least this many samples..."},
      {"min_cpu_millis", &min_cpu_millis, config::Rule::kNonNegative,
       "...for CPU requests of at least this many millicores."},
      {"headroom", &headroom, config::Rule::kNonNegative,
       "The advised request is the observed use plus this headroom (0.2 is 20% more)."},
  };
}

}  // namespace dagadvisor::analysis
