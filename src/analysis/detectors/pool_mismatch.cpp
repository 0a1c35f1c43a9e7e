#include "analysis/detectors/pool_mismatch.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "analysis/detectors/detector_util.h"
#include "analysis/packing.h"

namespace dagadvisor::analysis {
namespace {

using model::ClusterSnapshot;
using model::NodeId;
using model::ResourceVector;
using nlohmann::json;

constexpr double kGiB = 1024.0 * 1024 * 1024;
constexpr std::size_t kMaxListedNodes = SuggestedPool::kMaxListedNodes;

// Pool roles by shape; the names double as the suggested `node-type` values.
constexpr const char* kCompute = "compute-optimized";
constexpr const char* kGeneral = "general-purpose";
constexpr const char* kMemory = "memory-optimized";
constexpr const char* kGpu = "gpu";

std::string roleOf(const ResourceVector& shape, const analysis::PoolMismatchSettings& params) {
  if (shape.gpus > 0) {
    return kGpu;
  }
  if (shape.cpu_millis <= 0) {
    return kMemory;
  }
  const double gib_per_core = static_cast<double>(shape.memory_bytes) / kGiB /
                              (static_cast<double>(shape.cpu_millis) / 1000);
  if (gib_per_core <= params.compute_max_gib_per_core) {
    return kCompute;
  }
  return gib_per_core >= params.memory_min_gib_per_core ? kMemory : kGeneral;
}

struct Pool {
  std::string role;
  bool labelled = false;
  ResourceVector total;
  std::vector<NodeId> nodes;
};

// A labelled node belongs to its label's pool; an unlabelled one to the pool of its own shape.
std::string poolOf(const model::Node& node, const analysis::PoolMismatchSettings& params,
                   const std::string& pool_label) {
  const auto label = node.labels.get(pool_label);
  return label ? std::string(*label) : roleOf(node.allocatable, params);
}

std::map<std::string, Pool> buildPools(const ClusterSnapshot& cluster,
                                       const analysis::PoolMismatchSettings& params,
                                       const std::string& pool_label) {
  std::map<std::string, Pool> pools;
  for (NodeId id = 0; id < cluster.nodes().size(); ++id) {
    const model::Node& node = cluster.node(id);
    Pool& pool = pools[poolOf(node, params, pool_label)];
    pool.labelled = pool.labelled || node.labels.has(pool_label);
    pool.total += node.allocatable;
    pool.nodes.push_back(id);
  }
  for (auto& [name, pool] : pools) {
    pool.role = roleOf(pool.total, params);
  }
  return pools;
}

const std::string* poolForRole(const std::map<std::string, Pool>& pools, const std::string& role) {
  const std::string* best = nullptr;
  for (const auto& [name, pool] : pools) {
    if (pool.role == role && (best == nullptr || (pool.labelled && !pools.at(*best).labelled))) {
      best = &name;
    }
  }
  return best;
}

using OwnerKey = std::tuple<std::string, std::string, std::string>;  // namespace, kind, name

struct Misplaced {
  std::string role;
  std::string pool;
  std::vector<ResourceVector> requests;  // of every misplaced pod
  std::vector<MisplacedPod> pods;        // the first kMaxListedPods
};

constexpr std::size_t kMaxListedPods = PoolMismatchEvidence::kMaxListedPods;

SuggestedPool suggestedPool(const ClusterSnapshot& cluster, const std::string& name,
                            const Pool& pool) {
  SuggestedPool out{name, pool.role, pool.labelled, pool.nodes.size(), {}};
  for (std::size_t i = 0; i < pool.nodes.size() && i < kMaxListedNodes; ++i) {
    out.nodes.push_back(cluster.node(pool.nodes[i]).name);
  }
  return out;
}

// The free capacity of the pool's schedulable nodes, one bin per node.
std::vector<ResourceVector> freeBins(const ClusterSnapshot& cluster, const Pool& pool) {
  std::vector<ResourceVector> bins;
  for (NodeId id : pool.nodes) {
    if (!cluster.node(id).unschedulable) {
      bins.push_back(cluster.freeOn(id));
    }
  }
  return bins;
}

// How many of `pods` the free room of `pool` takes together.
std::size_t podsFitting(const ClusterSnapshot& cluster, const Pool& pool,
                        std::vector<ResourceVector> pods) {
  return podsFittingTogether(std::move(pods), freeBins(cluster, pool), pool.total);
}

ResourceVector sum(const std::vector<ResourceVector>& bins) {
  ResourceVector out;
  for (const ResourceVector& b : bins) {
    out += b;
  }
  return out;
}

json poolJson(const SuggestedPool& pool) {
  return {{"name", pool.name},
          {"role", pool.role},
          {"labelled", pool.labelled},
          {"node_count", pool.node_count},
          {"nodes", pool.nodes}};
}

json roomJson(const PoolRoom& room) {
  return {{"free_cpu_millis", room.free.cpu_millis},
          {"free_memory_bytes", room.free.memory_bytes},
          {"pods_fitting", room.pods_fitting},
          {"pool_moves", room.pool_moves},
          {"pool_moves_fitting", room.pool_moves_fitting},
          {"takes_all", room.takesAll()}};
}

json podJson(const MisplacedPod& pod) {
  return {{"pod", pod.pod},
          {"node", pod.node},
          {"node_pool", pod.node_pool},
          {"node_pool_role", pod.node_pool_role},
          {"cpu_millis", pod.requests.cpu_millis},
          {"memory_bytes", pod.requests.memory_bytes}};
}

}  // namespace

json PoolMismatchEvidence::toJson() const {
  json listed = json::array();
  for (const MisplacedPod& pod : pods) {
    listed.push_back(podJson(pod));
  }
  return {{"namespace", namespace_},  {"owner_kind", owner_kind},
          {"owner_name", owner_name}, {"pod_role", pod_role},
          {"pool_label", pool_label}, {"suggested_pool", poolJson(suggested_pool)},
          {"room", roomJson(room)},   {"pod_count", pod_count},
          {"pods", std::move(listed)}};
}

const DetectorInfo& PoolMismatch::info() const {
  static const DetectorInfo kInfo{
      PoolMismatchEvidence::kKind,
      "Pods whose CPU:memory:GPU shape fits another pool than their node's"};
  return kInfo;
}

namespace {

using ByOwner = std::map<OwnerKey, Misplaced>;

// The pods of every workload running outside the pool its shape fits, by workload.
ByOwner misplacedByOwner(const ClusterSnapshot& cluster, const std::map<std::string, Pool>& pools,
                         const analysis::PoolMismatchSettings& params,
                         const std::string& pool_label) {
  ByOwner by_owner;
  for (NodeId id = 0; id < cluster.nodes().size(); ++id) {
    const model::Node& node = cluster.node(id);
    const std::string node_pool = poolOf(node, params, pool_label);
    for (model::PodId pid : cluster.podsOn(id)) {
      const model::Pod& pod = cluster.pod(pid);
      // DaemonSets belong on every node; non-GPU pods on GPU nodes are gpu-node-hoarding's.
      if (pod.owner_kind == "DaemonSet" || node.hasGpus() ||
          std::max(share(pod.requests.cpu_millis, node.allocatable.cpu_millis),
                   share(pod.requests.memory_bytes, node.allocatable.memory_bytes)) <
              params.min_pod_share) {
        continue;
      }
      const std::string role = roleOf(pod.requests, params);
      const std::string* fit = poolForRole(pools, role);
      if (role == kGeneral || pools.at(node_pool).role == role || fit == nullptr) {
        continue;
      }
      Misplaced& m = by_owner[{pod.namespace_, pod.owner_kind.empty() ? "Pod" : pod.owner_kind,
                               pod.owner_name.empty() ? pod.name : pod.owner_name}];
      m.role = role;
      m.pool = *fit;
      m.requests.push_back(pod.requests);
      if (m.pods.size() < kMaxListedPods) {
        m.pods.push_back({pod.name, node.name, node_pool, pools.at(node_pool).role, pod.requests});
      }
    }
  }
  return by_owner;
}

// Each target pool's room for every move into it together: its free capacity, the pods moved
// and how many of them fit.
std::map<std::string, PoolRoom> roomByPool(const ClusterSnapshot& cluster,
                                           const std::map<std::string, Pool>& pools,
                                           const ByOwner& by_owner) {
  std::map<std::string, std::vector<ResourceVector>> moves;
  for (const auto& [owner, m] : by_owner) {
    auto& into = moves[m.pool];
    into.insert(into.end(), m.requests.begin(), m.requests.end());
  }
  std::map<std::string, PoolRoom> rooms;
  for (auto& [name, requests] : moves) {
    const Pool& pool = pools.at(name);
    PoolRoom& room = rooms[name];
    room.free = sum(freeBins(cluster, pool));
    room.pool_moves = requests.size();
    room.pool_moves_fitting = podsFitting(cluster, pool, std::move(requests));
  }
  return rooms;
}

}  // namespace

void PoolMismatch::analyze(const AnalysisInput& input, FindingSink& out) const {
  if (noNodesToJudge(input, out)) {
    return;
  }
  const auto& params = input.config.detectors.get<analysis::PoolMismatchSettings>();
  const ClusterSnapshot& cluster = input.cluster;
  const std::string& pool_label = input.config.cluster_labels.pool;
  const auto pools = buildPools(cluster, params, pool_label);
  ByOwner by_owner = misplacedByOwner(cluster, pools, params, pool_label);
  const std::map<std::string, PoolRoom> rooms = roomByPool(cluster, pools, by_owner);
  for (auto& [owner, m] : by_owner) {
    const auto& [ns, kind, name] = owner;
    const std::size_t pod_count = m.requests.size();
    PoolMismatchEvidence evidence;
    evidence.namespace_ = ns;
    evidence.owner_kind = kind;
    evidence.owner_name = name;
    evidence.pod_role = m.role;
    evidence.pool_label = pool_label;
    evidence.suggested_pool = suggestedPool(cluster, m.pool, pools.at(m.pool));
    evidence.room = rooms.at(m.pool);
    evidence.room.pods_fitting = podsFitting(cluster, pools.at(m.pool), m.requests);
    evidence.pod_count = pod_count;
    evidence.pods = std::move(m.pods);
    const std::size_t fitting = evidence.room.pods_fitting;
    Finding finding = findingOf(std::move(evidence));
    finding.severity = Severity::kInfo;
    finding.target = "workload/" + ns + "/" + kind + "/" + name;
    finding.summary = formatText(
        "%s %s/%s: %zu %s pod(s) run outside pool %s, which has room for %zu of them now",
        kind.c_str(), ns.c_str(), name.c_str(), pod_count, m.role.c_str(), m.pool.c_str(), fitting);
    finding.impact = static_cast<double>(fitting);  // the pods that can move now
    out.emit(std::move(finding));
  }
}

std::vector<config::Field> PoolMismatchSettings::fields() {
  return {
      {"enabled", &enabled, config::Rule::kNone, "Turn this check on or off."},
      {"compute_max_gib_per_core", &compute_max_gib_per_core, config::Rule::kNonNegative,
       "Shapes by memory per CPU core: at most this many GiB per core is CPU-heavy..."},
      {"memory_min_gib_per_core", &memory_min_gib_per_core, config::Rule::kNonNegative,
       "...at least this many GiB per core is memory-heavy; in between is general purpose."},
      {"min_pod_share", &min_pod_share, config::Rule::kShare,
       "Pods that request less than this share of their node's CPU and memory are left out."},
  };
}

}  // namespace dagadvisor::analysis
