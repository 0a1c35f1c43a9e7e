#include "analysis/pending_diagnosis.h"

#include <algorithm>
#include <array>
#include <limits>
#include <map>
#include <utility>

#include "analysis/node_eligibility.h"
#include "analysis/packing.h"

namespace dagadvisor::analysis {
namespace {

using model::ClusterSnapshot;
using model::NodeId;
using model::PodId;
using model::ResourceVector;

using ShapeKey = ResourceVector::SizeKey;

bool requestsNothing(const ResourceVector& r) {
  return r.cpu_millis <= 0 && r.memory_bytes <= 0 && r.gpus <= 0;
}

// How many pods of `shape` (which requests something) fit in `room`: the tightest resource
// decides; resources the shape does not request do not.
std::int64_t fitCount(const ResourceVector& room, const ResourceVector& shape) {
  std::int64_t fit = std::numeric_limits<std::int64_t>::max();
  const std::array<std::pair<std::int64_t, std::int64_t>, 3> parts = {
      {{room.cpu_millis, shape.cpu_millis},
       {room.memory_bytes, shape.memory_bytes},
       {room.gpus, shape.gpus}}};
  for (const auto& [have, need] : parts) {
    if (need > 0) {
      fit = std::min(fit, std::max<std::int64_t>(0, have) / need);
    }
  }
  return fit;
}

// What one node offers the tests, from one pass over the pods.
struct NodeFacts {
  ResourceVector free;        // allocatable − requested (may be negative when over-committed)
  ResourceVector repackable;  // allocatable − DaemonSet requests: the most any repack leaves
  ResourceVector non_gpu;     // requested by pods asking for no GPU
  ResourceVector movable;     // the part of non_gpu not held by DaemonSets
};

std::vector<NodeFacts> nodeFacts(const ClusterSnapshot& cluster) {
  std::vector<NodeFacts> facts(cluster.nodes().size());
  for (NodeId id = 0; id < facts.size(); ++id) {
    facts[id].free = cluster.freeOn(id);
    facts[id].repackable = cluster.node(id).allocatable;
  }
  for (const model::Pod& pod : cluster.pods()) {
    if (!pod.holdsResources() || pod.node >= facts.size()) {
      continue;
    }
    NodeFacts& f = facts[pod.node];
    const bool daemon = pod.owner_kind == "DaemonSet";
    if (daemon) {
      f.repackable -= pod.requests;
    }
    if (pod.requests.gpus == 0) {
      f.non_gpu += pod.requests;
      if (!daemon) {
        f.movable += pod.requests;
      }
    }
  }
  return facts;
}

ResourceVector cpuAndMemory(const ResourceVector& v) {
  return {v.cpu_millis, v.memory_bytes, 0};
}

// The state the five tests share.
struct Diagnoser {
  const ClusterSnapshot& cluster;
  const DiagnosisOptions& options;
  NodeEligibility eligibility;
  std::vector<NodeFacts> facts;
  /// Per node: the free room left once the queue pods placed by test 1 took theirs.
  std::vector<ResourceVector> room;
  std::vector<std::string> groups;  // per pending index: NodeEligibility::groupsFor
  std::vector<bool> decided;        // per pending index
  PendingDiagnosis out;

  Diagnoser(const ClusterSnapshot& c, const DiagnosisOptions& o)
      : cluster(c), options(o), eligibility(c, o.gpu_taint_key), facts(nodeFacts(c)) {
    for (const NodeFacts& f : facts) {
      room.push_back(f.free);
    }
  }

  const ResourceVector& requestsOf(std::size_t i) const {
    return cluster.pod(cluster.pendingPods()[i]).requests;
  }
  void decide(std::size_t i, PendingCause cause, NodeId node) {
    out.pods[i].cause = cause;
    out.pods[i].node = node;
    decided[i] = true;
  }
  // The undecided pending indices, largest requests first.
  std::vector<std::size_t> undecidedDecreasing(bool gpu_only) const {
    std::vector<std::size_t> out_idx;
    for (std::size_t i = 0; i < decided.size(); ++i) {
      if (!decided[i] && (!gpu_only || requestsOf(i).gpus > 0)) {
        out_idx.push_back(i);
      }
    }
    std::stable_sort(out_idx.begin(), out_idx.end(), [&](std::size_t a, std::size_t b) {
      return model::largerFirst(requestsOf(a), requestsOf(b));
    });
    return out_idx;
  }

  void placeNow();
  bool placeQueued(std::size_t i);
  void placeConstrained(std::size_t i);
  void noteConstrained(std::size_t i, NodeId fits_excluded);
  void matchHoarding();
  void classifyGpuNodes(const std::vector<std::size_t>& blocked,
                        const std::vector<ResourceVector>& initial_room);
  void classifyUnmatched(GpuNodeDiagnosis& node, const std::vector<std::size_t>& blocked,
                         const ResourceVector& movable_room) const;
  void splitPooled();
  void tallyShapes();
};

// Test 1 for pod i: the first node it may land on with room takes it.
bool Diagnoser::placeQueued(std::size_t i) {
  const ResourceVector& r = requestsOf(i);
  for (NodeId n = 0; n < facts.size(); ++n) {
    if (eligibility.eligible(groups[i], n) && (room[n].fits(r) || requestsNothing(r))) {
      room[n] -= r;
      decide(i, PendingCause::kQueue, n);
      return true;
    }
  }
  return false;
}

// Test 2 for pod i: room only on excluded nodes, or no node it may use could ever hold it.
void Diagnoser::placeConstrained(std::size_t i) {
  const ResourceVector& r = requestsOf(i);
  NodeId fits_excluded = model::kNoNode;
  bool eligible_shape = false;
  bool excluded_shape = false;
  for (NodeId n = 0; n < facts.size(); ++n) {
    if (!eligibility.usable(n)) {
      continue;
    }
    const bool eligible = eligibility.eligible(groups[i], n);
    if (!eligible && fits_excluded == model::kNoNode && room[n].fits(r)) {
      fits_excluded = n;
    }
    (eligible ? eligible_shape : excluded_shape) |= facts[n].repackable.fits(r);
  }
  if (fits_excluded != model::kNoNode || (excluded_shape && !eligible_shape)) {
    decide(i, PendingCause::kConstraints, fits_excluded);
    noteConstrained(i, fits_excluded);
  }
}

// The first few constrained pods, with what keeps each off the node it would fit (or off the
// first excluded node that could hold it empty).
void Diagnoser::noteConstrained(std::size_t i, NodeId fits_excluded) {
  if (out.constrained.size() >= ConstrainedPod::kMaxListed) {
    return;
  }
  const model::Pod& pod = cluster.pod(cluster.pendingPods()[i]);
  NodeId shown = fits_excluded;
  for (NodeId n = 0; shown == model::kNoNode && n < facts.size(); ++n) {
    if (eligibility.usable(n) && !eligibility.eligible(groups[i], n) &&
        facts[n].repackable.fits(pod.requests)) {
      shown = n;
    }
  }
  ConstrainedPod c{pod.key(), "", ""};
  if (shown != model::kNoNode) {
    c.node = cluster.node(shown).name;
    c.excluded_by = eligibility.exclusion(pod, shown);
  }
  out.constrained.push_back(std::move(c));
}

// Tests 1 and 2, largest pods first: the queue pods draw the room down as the scheduler would.
void Diagnoser::placeNow() {
  const auto& pending = cluster.pendingPods();
  for (std::size_t i = 0; i < pending.size(); ++i) {
    out.pods[i].pod = pending[i];
    groups[i] = eligibility.groupsFor(cluster.pod(pending[i]));
  }
  const std::vector<std::size_t> order = undecidedDecreasing(false);
  std::vector<std::size_t> unplaced;
  for (std::size_t i : order) {
    if (!placeQueued(i)) {
      unplaced.push_back(i);
    }
  }
  for (std::size_t i : unplaced) {
    placeConstrained(i);
  }
}

// Test 3: first-fit decreasing of the blocked GPU pods into the room each GPU node's movable
// non-GPU pods would leave.
void Diagnoser::matchHoarding() {
  std::vector<ResourceVector> freed(facts.size());  // room once the movable pods left
  std::vector<GpuNodeDiagnosis> nodes(facts.size());
  for (NodeId n = 0; n < facts.size(); ++n) {
    nodes[n].node = n;
    nodes[n].non_gpu = facts[n].non_gpu;
    nodes[n].movable = facts[n].movable;
    const bool candidate = eligibility.usable(n) && cluster.node(n).hasGpus() &&
                           room[n].gpus >= options.min_free_gpus &&
                           (facts[n].non_gpu.cpu_millis > 0 || facts[n].non_gpu.memory_bytes > 0);
    // A node that is no candidate offers no room: no GPU fits there.
    freed[n] = candidate ? room[n] + cpuAndMemory(facts[n].movable) : ResourceVector{-1, -1, -1};
  }
  const std::vector<std::size_t> blocked = undecidedDecreasing(true);
  std::vector<ResourceVector> demands;
  for (std::size_t i : blocked) {
    demands.push_back(requestsOf(i));
  }
  Bins bins{.room = freed};  // freed stays the room before any match
  bins.admits = [&](std::size_t d, std::size_t n) {
    return eligibility.eligible(groups[blocked[d]], static_cast<NodeId>(n));
  };
  const std::vector<std::size_t> node_of = firstFitDecreasing(demands, model::largerFirst, bins);
  for (std::size_t d = 0; d < blocked.size(); ++d) {
    if (const std::size_t n = node_of[d]; n != kNoBin) {
      nodes[n].matched.push_back(out.pods[blocked[d]].pod);
      nodes[n].gpus_unblocked += demands[d].gpus;
      decide(blocked[d], PendingCause::kHoarding, static_cast<NodeId>(n));
    }
  }
  out.gpu_nodes = std::move(nodes);
  classifyGpuNodes(blocked, freed);
}

// The hold of a GPU node no pending pod was matched to: a blocked GPU pod it may take would fit
// the room its movable pods leave (matched elsewhere), or only with its DaemonSets gone too.
void Diagnoser::classifyUnmatched(GpuNodeDiagnosis& node, const std::vector<std::size_t>& blocked,
                                  const ResourceVector& movable_room) const {
  const NodeId n = node.node;
  const ResourceVector all_gone = room[n] + cpuAndMemory(facts[n].non_gpu);
  const std::size_t* smallest = nullptr;  // blocked is largest first: the last one that fits
  for (const std::size_t& i : blocked) {
    if (!eligibility.eligible(groups[i], n)) {
      continue;
    }
    if (movable_room.fits(requestsOf(i))) {
      node.hold = GpuNodeHold::kMovableUnmatched;
      return;
    }
    smallest = all_gone.fits(requestsOf(i)) ? &i : smallest;
  }
  if (smallest != nullptr) {
    node.hold = GpuNodeHold::kDaemonSets;
    node.daemonset_excess = model::nonNegative(cpuAndMemory(requestsOf(*smallest) - movable_room));
  }
}

// Which hold each candidate GPU node has; keeps only the nodes with one.
void Diagnoser::classifyGpuNodes(const std::vector<std::size_t>& blocked,
                                 const std::vector<ResourceVector>& initial_room) {
  std::vector<GpuNodeDiagnosis> kept;
  for (GpuNodeDiagnosis& node : out.gpu_nodes) {
    if (!node.matched.empty()) {
      node.hold = GpuNodeHold::kMovable;
    } else if (initial_room[node.node].gpus >= 0) {
      classifyUnmatched(node, blocked, initial_room[node.node]);
    }
    if (node.hold != GpuNodeHold::kNone) {
      kept.push_back(std::move(node));
    }
  }
  out.gpu_nodes = std::move(kept);
}

// Tests 4 and 5: the pooled room of the nodes that may and could hold each pod, drawn down by
// the hoarding pods and then by the larger pending pods, capped by the free slots of its shape.
void Diagnoser::splitPooled() {
  std::vector<ResourceVector> pool(facts.size());
  for (NodeId n = 0; n < facts.size(); ++n) {
    pool[n] = eligibility.usable(n) ? model::nonNegative(room[n]) : ResourceVector{};
  }
  // Slots of a shape the queued and hoarding pods will take once placed.
  std::map<ShapeKey, std::int64_t> claimed;
  for (std::size_t i = 0; i < out.pods.size(); ++i) {
    const PendingCause cause = out.pods[i].cause;
    if (decided[i] && (cause == PendingCause::kQueue || cause == PendingCause::kHoarding)) {
      ++claimed[requestsOf(i).sizeKey()];
    }
    if (decided[i] && cause == PendingCause::kHoarding) {
      pool[out.pods[i].node] = model::nonNegative(pool[out.pods[i].node] - requestsOf(i));
    }
  }
  std::map<ShapeKey, std::vector<std::uint32_t>> bound;  // per shape, bound pods by node
  for (std::size_t i : undecidedDecreasing(false)) {
    bound.try_emplace(requestsOf(i).sizeKey(), std::vector<std::uint32_t>(facts.size(), 0));
  }
  for (const model::Pod& pod : cluster.pods()) {
    if (pod.holdsResources() && pod.node < facts.size() && pod.owner_kind != "DaemonSet") {
      if (auto it = bound.find(pod.requests.sizeKey()); it != bound.end()) {
        ++it->second[pod.node];
      }
    }
  }
  for (std::size_t i : undecidedDecreasing(false)) {
    const ResourceVector& r = requestsOf(i);
    std::int64_t& shape_claimed = claimed[r.sizeKey()];
    const std::vector<std::uint32_t>& shape_bound = bound.at(r.sizeKey());
    ResourceVector avail;
    std::int64_t slots = -shape_claimed;
    std::vector<NodeId> candidates;
    for (NodeId n = 0; n < facts.size(); ++n) {
      if (eligibility.eligible(groups[i], n) && facts[n].repackable.fits(r)) {
        candidates.push_back(n);
        avail += pool[n];
        slots += fitCount(facts[n].repackable, r) - shape_bound[n];
      }
    }
    if (candidates.empty() || !avail.fits(r) || slots < 1) {
      decide(i, PendingCause::kCapacity, model::kNoNode);
      continue;
    }
    decide(i, PendingCause::kFragmentation, model::kNoNode);
    ++shape_claimed;
    ResourceVector left = r;
    for (NodeId n : candidates) {
      const ResourceVector take{std::min(left.cpu_millis, pool[n].cpu_millis),
                                std::min(left.memory_bytes, pool[n].memory_bytes),
                                std::min(left.gpus, pool[n].gpus)};
      pool[n] -= take;
      left -= take;
    }
  }
  for (NodeId n = 0; n < facts.size(); ++n) {
    out.pool_left += pool[n];
  }
}

// The fit-count figures per pending shape, over every usable node.
void Diagnoser::tallyShapes() {
  std::map<ShapeKey, PendingShapeDiagnosis, std::greater<>> shapes;
  for (std::size_t i = 0; i < out.pods.size(); ++i) {
    const ResourceVector& r = requestsOf(i);
    if (requestsNothing(r)) {
      continue;
    }
    PendingShapeDiagnosis& s = shapes[r.sizeKey()];
    s.requests = r;
    ++s.pending;
    ++s.by_cause[static_cast<std::size_t>(out.pods[i].cause)];
  }
  ResourceVector pooled_free;
  for (NodeId n = 0; n < facts.size(); ++n) {
    if (eligibility.usable(n)) {
      pooled_free += model::nonNegative(facts[n].free);
    }
  }
  for (auto& [key, s] : shapes) {
    for (NodeId n = 0; n < facts.size(); ++n) {
      if (eligibility.usable(n)) {
        s.fit += fitCount(facts[n].free, s.requests);
        s.slots += fitCount(facts[n].repackable, s.requests);
      }
    }
    s.pooled = fitCount(pooled_free, s.requests);
  }
  for (const model::Pod& pod : cluster.pods()) {
    if (pod.holdsResources() && pod.node < facts.size() && eligibility.usable(pod.node) &&
        pod.owner_kind != "DaemonSet") {
      if (auto it = shapes.find(pod.requests.sizeKey()); it != shapes.end()) {
        ++it->second.bound;
      }
    }
  }
  for (auto& [key, s] : shapes) {
    out.shapes.push_back(s);
  }
}

}  // namespace

std::string_view pendingCauseName(PendingCause cause) {
  switch (cause) {
    case PendingCause::kQueue:
      return "queue";
    case PendingCause::kConstraints:
      return "constraints";
    case PendingCause::kHoarding:
      return "hoarding";
    case PendingCause::kFragmentation:
      return "fragmentation";
    case PendingCause::kCapacity:
      return "capacity";
  }
  return "capacity";
}

std::vector<PodId> PendingDiagnosis::podsOf(PendingCause cause) const {
  std::vector<PodId> out;
  for (const PendingPodDiagnosis& p : pods) {
    if (p.cause == cause) {
      out.push_back(p.pod);
    }
  }
  return out;
}

DiagnosisCounts PendingDiagnosis::summary() const {
  DiagnosisCounts out;
  out.pending_pods = pods.size();
  out.by_cause = counts;
  out.hoarded_nodes = static_cast<std::size_t>(
      std::count_if(gpu_nodes.begin(), gpu_nodes.end(),
                    [](const GpuNodeDiagnosis& n) { return n.hold == GpuNodeHold::kMovable; }));
  out.checked = checked;
  out.constrained = constrained;
  return out;
}

namespace {

std::string joined(const std::vector<std::string>& keys) {
  std::string out;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    out += (i == 0 ? "" : ", ") + keys[i];
  }
  return out;
}

}  // namespace

ConstraintsChecked ConstraintsChecked::of(const ClusterSnapshot& cluster) {
  ConstraintsChecked out;
  out.tolerations_exported = cluster.specFamilies().tolerations;
  out.node_selectors_exported = cluster.specFamilies().node_selectors;
  for (PodId id : cluster.pendingPods()) {
    out.tolerations_known += cluster.pod(id).tolerations ? 1 : 0;
    out.node_selectors_known += cluster.pod(id).node_selector ? 1 : 0;
  }
  out.unseen_selector_keys = unseenSelectorKeys(cluster);
  out.unseen_selector_keys.resize(std::min(out.unseen_selector_keys.size(), kMaxUnseenKeys));
  out.affinity_listed = cluster.pendingSpecsListed();
  for (PodId id : cluster.pendingPods()) {
    const auto& affinity = cluster.pod(id).required_node_affinity;
    out.affinity_known += affinity ? 1 : 0;
    out.affinity_pods += affinity && !affinity->empty() ? 1 : 0;
  }
  out.unseen_affinity_keys = unseenAffinityKeys(cluster);
  out.unseen_affinity_keys.resize(std::min(out.unseen_affinity_keys.size(), kMaxUnseenKeys));
  return out;
}

nlohmann::json ConstraintsChecked::toJson() const {
  nlohmann::json selectors = {
      {"source", node_selectors_exported ? "kube_pod_nodeselectors" : "not checked"},
      {"pods", node_selectors_known}};
  if (!node_selectors_exported) {
    selectors["enable"] = kNodeSelectorsOptIn;
  }
  if (!unseen_selector_keys.empty()) {
    selectors["unseen_keys"] = unseen_selector_keys;
  }
  nlohmann::json affinity = {
      {"source", affinity_listed ? "Kubernetes API (pending pods)" : "not checked"},
      {"pods", affinity_known},
      {"required", affinity_pods}};
  if (!affinity_listed) {
    affinity["enable"] = kAffinitySource;
  }
  if (!unseen_affinity_keys.empty()) {
    affinity["unseen_keys"] = unseen_affinity_keys;
  }
  return {{"tolerations",
           {{"source", tolerations_exported ? "kube_pod_tolerations"
                                            : "inferred (GPU taint key, owners' placements)"},
            {"pods", tolerations_known}}},
          {"node_selectors", std::move(selectors)},
          {"node_affinity", std::move(affinity)}};
}

std::string ConstraintsChecked::notChecked() const {
  std::string out;
  if (!tolerations_exported) {
    out +=
        "Tolerations were inferred (kube_pod_tolerations, kube-state-metrics v2.6.0 and "
        "later, answered nothing). ";
  }
  if (!node_selectors_exported) {
    out += std::string(
               "Node selectors were not checked: kube-state-metrics exports "
               "kube_pod_nodeselectors only with ") +
           kNodeSelectorsOptIn + ". ";
  }
  if (!unseen_selector_keys.empty()) {
    out += "Node selector keys no node's labels show were not checked (" +
           joined(unseen_selector_keys) +
           "): allow-list them with --metric-labels-allowlist=nodes=[…] if nodes carry them. ";
  }
  return out + affinityWords();
}

std::string ConstraintsChecked::affinityWords() const {
  if (!affinity_listed) {
    return std::string(
               "Node affinity was not checked: kube-state-metrics does not export it; "
               "enable ") +
           kAffinitySource + ".";
  }
  std::string out = "Node affinity was checked for the " + std::to_string(affinity_known) +
                    " pending pod(s) the Kubernetes API listed (" + std::to_string(affinity_pods) +
                    " with a required one)";
  if (!unseen_affinity_keys.empty()) {
    out += "; keys no node's labels show were not checked (" + joined(unseen_affinity_keys) + ")";
  }
  return out + ".";
}

nlohmann::json DiagnosisCounts::toJson() const {
  nlohmann::json out = {{"pending_pods", pending_pods}};
  for (std::size_t c = 0; c < kPendingCauses; ++c) {
    out[std::string(pendingCauseName(static_cast<PendingCause>(c)))] = by_cause[c];
  }
  out["hoarded_nodes"] = hoarded_nodes;
  out["constraints_checked"] = checked.toJson();
  nlohmann::json listed = nlohmann::json::array();
  for (const ConstrainedPod& c : constrained) {
    listed.push_back({{"pod", c.pod}, {"node", c.node}, {"excluded_by", c.excluded_by}});
  }
  out["constrained"] = std::move(listed);
  return out;
}

PendingDiagnosis diagnosePending(const ClusterSnapshot& cluster, const DiagnosisOptions& options) {
  Diagnoser d(cluster, options);
  const std::size_t n = cluster.pendingPods().size();
  d.out.pods.resize(n);
  d.groups.resize(n);
  d.decided.assign(n, false);
  d.placeNow();
  d.matchHoarding();
  d.splitPooled();
  for (const PendingPodDiagnosis& p : d.out.pods) {
    ++d.out.counts[static_cast<std::size_t>(p.cause)];
  }
  d.tallyShapes();
  d.out.checked = ConstraintsChecked::of(cluster);
  return std::move(d.out);
}

}  // namespace dagadvisor::analysis
