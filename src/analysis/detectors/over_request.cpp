#include "analysis/detectors/over_request.h"

#include <cmath>
#include <map>
#include <tuple>

#include "analysis/detectors/detector_util.h"

namespace dagadvisor::analysis {
namespace {

using model::ClusterSnapshot;
using model::Pod;
using nlohmann::json;

constexpr std::int64_t kCpuStep = 10;                // millicores
constexpr std::int64_t kMemoryStep = 1024LL * 1024;  // one Mi
constexpr std::size_t kMaxListedPods = 20;

std::int64_t roundUp(double value, std::int64_t step) {
  return std::max<std::int64_t>(step, static_cast<std::int64_t>(std::ceil(value / step)) * step);
}

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
  double samples = 0;                 // fewest samples of one pod
  std::size_t pod_count = 0;
  json pods = json::array();  // the first kMaxListedPods, to keep findings small
};

// Right-sized requests of an over-requested pod, or nullopt when it uses enough of both.
std::optional<model::ResourceVector> rightSized(const Pod& pod, const config::OverRequest& params) {
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

void add(Owner& owner, const Pod& pod, const model::Node& node,
         const model::ResourceVector& sized) {
  auto max = [](model::ResourceVector& a, const model::ResourceVector& b) {
    a = {std::max(a.cpu_millis, b.cpu_millis), std::max(a.memory_bytes, b.memory_bytes), a.gpus};
  };
  max(owner.requested, pod.requests);
  max(owner.recommended, sized);
  owner.reclaimable += pod.requests - sized;
  owner.samples =
      owner.pod_count++ == 0 ? pod.usage->samples : std::min(owner.samples, pod.usage->samples);
  if (owner.pods.size() >= kMaxListedPods) {
    return;
  }
  owner.pods.push_back({{"pod", pod.name},
                        {"node", node.name},
                        {"cpu_requested_millis", pod.requests.cpu_millis},
                        {"cpu_used_millis", pod.usage->cpu_cores * 1000},
                        {"memory_requested_bytes", pod.requests.memory_bytes},
                        {"memory_used_bytes", pod.usage->memory_bytes},
                        {"samples", pod.usage->samples}});
}

}  // namespace

const DetectorInfo& OverRequest::info() const {
  static const DetectorInfo kInfo{"over-request",
                                  "Pods on nearly full nodes requesting far more than they use"};
  return kInfo;
}

void OverRequest::analyze(const AnalysisInput& input, FindingSink& out) const {
  if (noNodesToJudge(input, out)) {
    return;
  }
  const auto& params = input.config.detectors.over_request;
  const ClusterSnapshot& cluster = input.cluster;
  std::map<std::tuple<std::string, std::string, std::string>, Owner> owners;
  std::size_t on_full_nodes = 0;
  std::size_t sampled = 0;
  for (model::NodeId id = 0; id < cluster.nodes().size(); ++id) {
    if (!contended(cluster, id, params.min_node_requested_share)) {
      continue;
    }
    for (model::PodId pid : cluster.podsOn(id)) {
      const Pod& pod = cluster.pod(pid);
      ++on_full_nodes;
      // Too few samples say nothing about a peak: no advice rather than a wrong one.
      if (!pod.usage || pod.usage->samples < params.min_samples) {
        continue;
      }
      ++sampled;
      if (const auto sized = rightSized(pod, params)) {
        add(owners[{pod.namespace_, pod.owner_kind.empty() ? "Pod" : pod.owner_kind,
                    pod.owner_name.empty() ? pod.name : pod.owner_name}],
            pod, cluster.node(id), *sized);
      }
    }
  }
  if (on_full_nodes > 0 && sampled == 0) {
    out.noAdvice(
        formatText("none of the %zu pod(s) on nearly full nodes has %d or more usage "
                   "samples (cAdvisor container metrics)",
                   on_full_nodes, params.min_samples));
  }
  for (auto& [key, owner] : owners) {
    const auto& [ns, kind, name] = key;
    Finding finding;
    finding.kind = std::string(info().kind);
    finding.severity = Severity::kInfo;
    finding.target = "workload/" + ns + "/" + kind + "/" + name;
    finding.summary = formatText(
        "%s %s/%s: %zu pod(s) on full nodes request %lldm CPU / %lld MiB but need %lldm / %lld MiB",
        kind.c_str(), ns.c_str(), name.c_str(), owner.pod_count,
        static_cast<long long>(owner.requested.cpu_millis),
        static_cast<long long>(owner.requested.memory_bytes / kMemoryStep),
        static_cast<long long>(owner.recommended.cpu_millis),
        static_cast<long long>(owner.recommended.memory_bytes / kMemoryStep));
    finding.impact = static_cast<double>(owner.reclaimable.cpu_millis) / 1000;
    finding.evidence = {{"namespace", ns},
                        {"owner_kind", kind},
                        {"owner_name", name},
                        {"requested_cpu_millis", owner.requested.cpu_millis},
                        {"requested_memory_bytes", owner.requested.memory_bytes},
                        {"recommended_cpu_millis", owner.recommended.cpu_millis},
                        {"recommended_memory_bytes", owner.recommended.memory_bytes},
                        {"reclaimable_cpu_millis", owner.reclaimable.cpu_millis},
                        {"reclaimable_memory_bytes", owner.reclaimable.memory_bytes},
                        {"min_samples", owner.samples},
                        {"pod_count", owner.pod_count},
                        {"headroom", params.headroom},
                        {"pods", std::move(owner.pods)}};
    out.emit(std::move(finding));
  }
}

}  // namespace dagadvisor::analysis
