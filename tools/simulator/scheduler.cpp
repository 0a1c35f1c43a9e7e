#include "scheduler.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "rng.h"

namespace dagadvisor::sim {
namespace {

constexpr double kEpsilon = 1e-9;
// The default profile's score plugin weights.
constexpr double kTaintWeight = 3;
constexpr double kNodeAffinityWeight = 2;
constexpr double kInterPodAffinityWeight = 2;

double freeFraction(double used, double request, double allocatable) {
  return allocatable <= 0 ? 0 : std::max(0.0, (allocatable - used - request) / allocatable);
}

bool fitsIn(const Resources& request, const Resources& used, const Resources& allocatable) {
  return used.cpu + request.cpu <= allocatable.cpu + kEpsilon &&
         used.memory + request.memory <= allocatable.memory + kEpsilon &&
         used.gpu + request.gpu <= allocatable.gpu && used.pods + request.pods <= allocatable.pods;
}

void subtract(Resources& from, const Resources& r) {
  from.cpu -= r.cpu;
  from.memory -= r.memory;
  from.gpu -= r.gpu;
  from.pods -= r.pods;
}

bool inNamespaces(const PodAffinityTerm& term, const std::string& termOwnerNs,
                  const std::string& ns) {
  return term.namespaces.empty() ? ns == termOwnerNs
                                 : std::find(term.namespaces.begin(), term.namespaces.end(), ns) !=
                                       term.namespaces.end();
}

bool termMatches(const PodAffinityTerm& term, const std::string& termOwnerNs, const Pod& other) {
  return inNamespaces(term, termOwnerNs, other.ns) && matchesSelector(term.selector, other.labels);
}

const std::string* domainOf(const Node& node, const std::string& topologyKey) {
  return labelValue(node.labels, topologyKey);
}

}  // namespace

// InterPodAffinity's pre-computed state for one pod: which topology domains hold the running
// pods each term matches.
struct Scheduler::Affinity {
  bool active = false;
  std::vector<std::set<std::string>> required;  // per required affinity term
  bool matchesOwnTerms = true;
  std::vector<std::set<std::string>> anti;                  // per required anti-affinity term
  std::set<std::pair<std::string, std::string>> forbidden;  // existing pods' anti-affinity
  std::vector<std::map<std::string, int>> preferred;        // affinity terms, then anti ones

  bool passes(const Pod& pod, const Node& node) const {
    if (!active) {
      return true;
    }
    const auto& s = pod.scheduling;
    bool noneAnywhere = std::all_of(required.begin(), required.end(),
                                    [](const auto& domains) { return domains.empty(); });
    for (std::size_t i = 0; i < s.requiredAffinity.size(); ++i) {
      const std::string* d = domainOf(node, s.requiredAffinity[i].topologyKey);
      // The first pod of a group that selects itself may go anywhere (kube-scheduler's rule).
      if (!(noneAnywhere && matchesOwnTerms) && (d == nullptr || !required[i].count(*d))) {
        return false;
      }
    }
    for (std::size_t i = 0; i < s.requiredAntiAffinity.size(); ++i) {
      const std::string* d = domainOf(node, s.requiredAntiAffinity[i].topologyKey);
      if (d != nullptr && anti[i].count(*d)) {
        return false;
      }
    }
    for (const auto& [key, value] : forbidden) {
      const std::string* d = domainOf(node, key);
      if (d != nullptr && *d == value) {
        return false;
      }
    }
    return true;
  }

  double preferredScore(const Pod& pod, const Node& node) const {
    const auto& s = pod.scheduling;
    double score = 0;
    std::size_t k = 0;
    for (const auto& w : s.preferredAffinity) {
      const std::string* d = domainOf(node, w.term.topologyKey);
      auto it = d ? preferred[k].find(*d) : preferred[k].end();
      score += it == preferred[k].end() ? 0 : w.weight * it->second;
      ++k;
    }
    for (const auto& w : s.preferredAntiAffinity) {
      const std::string* d = domainOf(node, w.term.topologyKey);
      auto it = d ? preferred[k].find(*d) : preferred[k].end();
      score -= it == preferred[k].end() ? 0 : w.weight * it->second;
      ++k;
    }
    return score;
  }
};

bool podAdmits(const Pod& pod, const Node& node) {
  if (!pod.pinnedNode.empty() && pod.pinnedNode != node.name) {
    return false;
  }
  return toleratesHardTaints(pod.scheduling.tolerations, node.taints) &&
         matchesRequiredNodeAffinity(pod.scheduling, node.labels);
}

bool podFits(const Pod& pod, const Node& node) {
  return podAdmits(pod, node) && fitsIn(pod.request, node.used, node.allocatable);
}

Scheduler::Scheduler(std::vector<Node>& nodes, const std::vector<Pod>& pods, std::uint64_t seed)
    : nodes_(nodes), pods_(pods), cached_(nodes.size()), seed_(seed) {}

Scheduler::Affinity Scheduler::affinityFor(const Pod& pod) const {
  Affinity a;
  const auto& s = pod.scheduling;
  a.active = s.hasPodAffinity() || withAntiAffinity_ > 0;
  if (!a.active) {
    return a;
  }
  a.required.resize(s.requiredAffinity.size());
  a.anti.resize(s.requiredAntiAffinity.size());
  a.preferred.resize(s.preferredAffinity.size() + s.preferredAntiAffinity.size());
  for (const auto& term : s.requiredAffinity) {
    a.matchesOwnTerms = a.matchesOwnTerms && termMatches(term, pod.ns, pod);
  }
  auto count = [&](const PodAffinityTerm& term, const Pod& other, const Node& node,
                   std::map<std::string, int>& into) {
    const std::string* d = domainOf(node, term.topologyKey);
    if (d != nullptr && termMatches(term, pod.ns, other)) {
      into[*d] += 1;
    }
  };
  for (std::size_t n = 0; n < nodes_.size(); ++n) {
    const Node& node = nodes_[n];
    for (int id : cached_[n]) {
      const Pod& other = pods_[static_cast<std::size_t>(id)];
      for (std::size_t i = 0; i < s.requiredAffinity.size(); ++i) {
        const std::string* d = domainOf(node, s.requiredAffinity[i].topologyKey);
        if (d != nullptr && termMatches(s.requiredAffinity[i], pod.ns, other)) {
          a.required[i].insert(*d);
        }
      }
      for (std::size_t i = 0; i < s.requiredAntiAffinity.size(); ++i) {
        const std::string* d = domainOf(node, s.requiredAntiAffinity[i].topologyKey);
        if (d != nullptr && termMatches(s.requiredAntiAffinity[i], pod.ns, other)) {
          a.anti[i].insert(*d);
        }
      }
      std::size_t k = 0;
      for (const auto& w : s.preferredAffinity) {
        count(w.term, other, node, a.preferred[k++]);
      }
      for (const auto& w : s.preferredAntiAffinity) {
        count(w.term, other, node, a.preferred[k++]);
      }
      // Symmetry: a running pod's required anti-affinity keeps matching pods out of its domain.
      for (const auto& term : other.scheduling.requiredAntiAffinity) {
        const std::string* d = domainOf(node, term.topologyKey);
        if (d != nullptr && termMatches(term, other.ns, pod)) {
          a.forbidden.emplace(term.topologyKey, *d);
        }
      }
    }
  }
  return a;
}

// NodeResourcesFit (LeastAllocated) and NodeResourcesBalancedAllocation, weight 1 each.
double Scheduler::score(const Pod& pod, const Node& node) const {
  double cpuFree = freeFraction(node.used.cpu, pod.request.cpu, node.allocatable.cpu);
  double memFree = freeFraction(node.used.memory, pod.request.memory, node.allocatable.memory);
  double leastAllocated = (cpuFree + memFree) / 2 * 100;
  double balanced = (1 - std::abs(cpuFree - memFree) / 2) * 100;
  return leastAllocated + balanced;
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

namespace {

// The raw scores of one feasible node, normalised over all feasible nodes as the plugins'
// NormalizeScore does.
struct Candidate {
  int node;
  double resources;
  double nodeAffinity;
  double intolerable;
  double podAffinity;
};

std::vector<double> normalised(const std::vector<Candidate>& c) {
  double maxNodeAffinity = 0;
  double maxIntolerable = 0;
  double minPod = c.empty() ? 0 : c[0].podAffinity;
  double maxPod = minPod;
  for (const auto& x : c) {
    maxNodeAffinity = std::max(maxNodeAffinity, x.nodeAffinity);
    maxIntolerable = std::max(maxIntolerable, x.intolerable);
    minPod = std::min(minPod, x.podAffinity);
    maxPod = std::max(maxPod, x.podAffinity);
  }
  std::vector<double> out;
  for (const auto& x : c) {
    double nodeAffinity = maxNodeAffinity > 0 ? 100 * x.nodeAffinity / maxNodeAffinity : 0;
    double taints = maxIntolerable > 0 ? 100 - 100 * x.intolerable / maxIntolerable : 100;
    double pod = maxPod > minPod ? 100 * (x.podAffinity - minPod) / (maxPod - minPod) : 0;
    out.push_back(x.resources + kNodeAffinityWeight * nodeAffinity + kTaintWeight * taints +
                  kInterPodAffinityWeight * pod);
  }
  return out;
}

}  // namespace

int Scheduler::place(const Pod& pod) {
  const std::size_t n = nodes_.size();
  const std::size_t want = nodesToFind();
  const Affinity affinity = affinityFor(pod);
  std::vector<Candidate> candidates;
  std::size_t scanned = 0;
  for (; scanned < n && candidates.size() < want; ++scanned) {
    std::size_t i = (nextStart_ + scanned) % n;
    const Node& node = nodes_[i];
    if (!podFits(pod, node) || !affinity.passes(pod, node)) {
      continue;
    }
    candidates.push_back(
        {static_cast<int>(i), score(pod, node),
         static_cast<double>(preferredNodeAffinityScore(pod.scheduling, node.labels)),
         static_cast<double>(intolerablePreferNoSchedule(pod.scheduling.tolerations, node.taints)),
         affinity.active ? affinity.preferredScore(pod, node) : 0});
  }
  nextStart_ = (nextStart_ + scanned) % n;
  const std::vector<double> scores = normalised(candidates);
  Rng rng(hashKeys(seed_, 51, decisions_++));
  int best = -1;
  double bestScore = -1e300;
  int ties = 0;
  for (std::size_t c = 0; c < candidates.size(); ++c) {
    if (scores[c] > bestScore + kEpsilon) {
      best = candidates[c].node;
      bestScore = scores[c];
      ties = 1;
    } else if (std::abs(scores[c] - bestScore) <= kEpsilon &&
               rng.below(static_cast<std::uint64_t>(++ties)) == 0) {
      best = candidates[c].node;  // reservoir sampling among equal scores, as kube-scheduler
    }
  }
  return best;
}

// The first filter that rejects every node names the failure, in kube-scheduler's filter order.
std::string Scheduler::rejectingPlugin(const Pod& pod) const {
  bool tolerated = false;
  bool selected = false;
  bool affine = false;
  const Affinity affinity = affinityFor(pod);
  for (const auto& node : nodes_) {
    if (!pod.pinnedNode.empty() && pod.pinnedNode != node.name) {
      continue;
    }
    if (!toleratesHardTaints(pod.scheduling.tolerations, node.taints)) {
      continue;
    }
    tolerated = true;
    if (!matchesRequiredNodeAffinity(pod.scheduling, node.labels)) {
      continue;
    }
    selected = true;
    affine = affine || affinity.passes(pod, node);
  }
  if (!tolerated) {
    return "TaintToleration";
  }
  if (!selected) {
    return "NodeAffinity";
  }
  return affine ? "NodeResourcesFit" : "InterPodAffinity";
}

Preemption Scheduler::preemption(const Pod& pod) const {
  Preemption best;
  if (pod.preemptionPolicy == "Never" || cachedPriorities_.empty() ||
      *cachedPriorities_.begin() >= pod.priority) {
    return best;
  }
  const Affinity affinity = affinityFor(pod);
  std::tuple<int, long long, std::size_t> bestRank{0, 0, 0};
  for (std::size_t n = 0; n < nodes_.size(); ++n) {
    const Node& node = nodes_[n];
    if (!podAdmits(pod, node) || !affinity.passes(pod, node)) {
      continue;  // evicting pods cannot fix taints, selectors or affinity
    }
    std::vector<int> lower;
    Resources used = node.used;
    for (int id : cached_[n]) {
      const Pod& other = pods_[static_cast<std::size_t>(id)];
      if (other.priority < pod.priority) {
        lower.push_back(id);
        subtract(used, other.request);
      }
    }
    if (lower.empty() || !fitsIn(pod.request, used, node.allocatable)) {
      continue;
    }
    // Reprieve the most important first: keep every pod that still leaves room.
    std::stable_sort(lower.begin(), lower.end(), [&](int a, int b) {
      return pods_[static_cast<std::size_t>(a)].priority >
             pods_[static_cast<std::size_t>(b)].priority;
    });
    std::vector<int> victims;
    for (int id : lower) {
      const Resources& r = pods_[static_cast<std::size_t>(id)].request;
      Resources with = used;
      with.cpu += r.cpu;
      with.memory += r.memory;
      with.gpu += r.gpu;
      with.pods += r.pods;
      if (fitsIn(pod.request, with, node.allocatable)) {
        used = with;
      } else {
        victims.push_back(id);
      }
    }
    int highest = pods_[static_cast<std::size_t>(victims.front())].priority;
    long long sum = 0;
    for (int id : victims) {
      highest = std::max(highest, pods_[static_cast<std::size_t>(id)].priority);
      sum += pods_[static_cast<std::size_t>(id)].priority;
    }
    std::tuple<int, long long, std::size_t> rank{highest, sum, victims.size()};
    if (best.node < 0 || rank < bestRank) {
      best.node = static_cast<int>(n);
      best.victims = std::move(victims);
      bestRank = rank;
    }
  }
  return best;
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
  cached_[static_cast<std::size_t>(nodeIndex)].push_back(pod.id);
  cachedPriorities_.insert(pod.priority);
  withAntiAffinity_ += pod.scheduling.requiredAntiAffinity.empty() ? 0 : 1;
}

void Scheduler::release(Pod& pod) {
  if (pod.node < 0) {
    return;
  }
  Node& node = nodes_[static_cast<std::size_t>(pod.node)];
  subtract(node.used, pod.request);
  for (int g : pod.gpus) {
    node.gpuOwner[static_cast<std::size_t>(g)] = -1;
  }
  auto& cached = cached_[static_cast<std::size_t>(pod.node)];
  cached.erase(std::remove(cached.begin(), cached.end(), pod.id), cached.end());
  if (auto it = cachedPriorities_.find(pod.priority); it != cachedPriorities_.end()) {
    cachedPriorities_.erase(it);
  }
  withAntiAffinity_ -= pod.scheduling.requiredAntiAffinity.empty() ? 0 : 1;
}

}  // namespace dagadvisor::sim
