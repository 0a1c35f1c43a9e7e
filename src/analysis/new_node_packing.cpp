#include "analysis/new_node_packing.h"

#include <algorithm>
#include <utility>

#include "analysis/packing.h"

namespace dagadvisor::analysis {
namespace {

using model::ClusterSnapshot;
using model::NodeId;
using model::PodId;
using model::ResourceVector;

// Per node, what its DaemonSet pods request: a new node of its shape would run them too.
std::vector<ResourceVector> daemonSetRequests(const ClusterSnapshot& cluster) {
  std::vector<ResourceVector> out(cluster.nodes().size());
  for (const model::Pod& pod : cluster.pods()) {
    if (pod.holdsResources() && pod.node < out.size() && pod.owner_kind == "DaemonSet") {
      out[pod.node] += pod.requests;
    }
  }
  return out;
}

struct Candidate {
  PodId id = 0;
  ResourceVector requests;
  double size = 0;               // its dominant share of the largest shape's capacity
  std::string groups;            // NodeEligibility::groupsFor
  bool cpu_shape_holds = false;  // a GPU-free shape it may land on holds it
};

bool mayTake(const NodeShape& shape, const Candidate& pod, const NodeEligibility& eligibility) {
  return eligibility.eligible(pod.groups, shape.example) && shape.capacity.fits(pod.requests) &&
         (pod.requests.gpus > 0 || shape.allocatable.gpus == 0 || !pod.cpu_shape_holds);
}

// What scaling one shape up for the pods left would add.
struct Estimate {
  std::int64_t nodes = 0;
  std::vector<std::size_t> placed;  // indices of the candidates
  ResourceVector packed;
  double size = 0;  // Σ size of the pods placed
};

// The binpacking estimate for one shape: first-fit decreasing of the pods left that may land on
// the shape onto new nodes of its capacity, each opened when no open one has room.
Estimate estimate(const NodeShape& shape, const std::vector<Candidate>& pods,
                  const std::vector<bool>& placed, const NodeEligibility& eligibility) {
  Estimate out;
  std::vector<ResourceVector> demands;
  for (std::size_t i = 0; i < pods.size(); ++i) {
    if (!placed[i] && mayTake(shape, pods[i], eligibility)) {
      out.placed.push_back(i);
      demands.push_back(pods[i].requests);
      out.packed += pods[i].requests;
      out.size += pods[i].size;
    }
  }
  Bins new_nodes{.empty_bin = shape.capacity};
  firstFitDecreasing(demands, model::largerFirst, new_nodes);
  out.nodes = static_cast<std::int64_t>(new_nodes.room.size());
  return out;
}

// Whether scaling up `a` places more of the demand per new node than `b` (then more pods): the
// shape to scale. Demand, not pods: counting pods would favour a shape that leaves the largest
// pods out, and these would then open nodes of their own.
bool better(const Estimate& a, const Estimate& b) {
  if (a.placed.empty() || b.placed.empty()) {
    return !a.placed.empty() && b.placed.empty();
  }
  const double per_node_a = a.size * static_cast<double>(b.nodes);
  const double per_node_b = b.size * static_cast<double>(a.nodes);
  return per_node_a != per_node_b ? per_node_a > per_node_b : a.placed.size() > b.placed.size();
}

// max over resources of r / largest: 1 is a full node of the largest shape.
double dominantShare(const ResourceVector& r, const ResourceVector& largest) {
  double share = 0;
  for (const auto& [need, have] :
       {std::pair{r.cpu_millis, largest.cpu_millis},
        std::pair{r.memory_bytes, largest.memory_bytes}, std::pair{r.gpus, largest.gpus}}) {
    if (have > 0) {
      share = std::max(share, static_cast<double>(need) / static_cast<double>(have));
    }
  }
  return share;
}

std::vector<Candidate> candidatesOf(const ClusterSnapshot& cluster,
                                    const NodeEligibility& eligibility,
                                    const std::vector<NodeShape>& shapes,
                                    const std::vector<PodId>& pods) {
  ResourceVector largest;
  for (const NodeShape& s : shapes) {
    largest = componentMax(largest, s.capacity);
  }
  std::vector<Candidate> out;
  for (PodId id : pods) {
    const ResourceVector& r = cluster.pod(id).requests;
    Candidate c{id, r, dominantShare(r, largest), eligibility.groupsFor(cluster.pod(id)), false};
    c.cpu_shape_holds = std::any_of(shapes.begin(), shapes.end(), [&](const NodeShape& s) {
      return s.allocatable.gpus == 0 && mayTake(s, c, eligibility);
    });
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace

std::vector<NodeShape> nodeShapes(const ClusterSnapshot& cluster,
                                  const NodeEligibility& eligibility,
                                  const std::string& pool_label) {
  const std::vector<ResourceVector> daemons = daemonSetRequests(cluster);
  std::vector<NodeShape> shapes;
  for (NodeId id = 0; id < cluster.nodes().size(); ++id) {
    const model::Node& node = cluster.node(id);
    if (!eligibility.usable(id)) {
      continue;
    }
    const auto label = node.labels.get(pool_label);
    const std::optional<std::string> pool =
        label ? std::optional<std::string>(std::string(*label)) : std::nullopt;
    const ResourceVector capacity = model::nonNegative(node.allocatable - daemons[id]);
    auto it = std::find_if(shapes.begin(), shapes.end(), [&](const NodeShape& s) {
      return s.allocatable == node.allocatable && s.pool == pool &&
             eligibility.group(s.example) == eligibility.group(id);
    });
    if (it == shapes.end()) {
      shapes.push_back({node.allocatable, capacity, pool, id});
    } else {
      it->capacity = componentMin(it->capacity, capacity);
    }
  }
  std::stable_sort(shapes.begin(), shapes.end(), [](const NodeShape& a, const NodeShape& b) {
    return a.allocatable.sizeKey() < b.allocatable.sizeKey();
  });
  return shapes;
}

NewNodePlan packOntoNewNodes(const ClusterSnapshot& cluster, const NodeEligibility& eligibility,
                             const std::vector<NodeShape>& shapes, const std::vector<PodId>& pods) {
  const std::vector<Candidate> candidates = candidatesOf(cluster, eligibility, shapes, pods);
  std::vector<bool> placed(candidates.size(), false);
  NewNodePlan plan;
  plan.by_shape.resize(shapes.size());
  for (const NodeShape& shape : shapes) {
    const bool usable = std::any_of(candidates.begin(), candidates.end(), [&](const Candidate& c) {
      return eligibility.eligible(c.groups, shape.example) && shape.capacity.fits(c.requests);
    });
    plan.largest_capacity =
        usable ? componentMax(plan.largest_capacity, shape.capacity) : plan.largest_capacity;
  }
  for (;;) {
    Estimate best;
    std::size_t best_shape = shapes.size();
    for (std::size_t s = 0; s < shapes.size(); ++s) {
      Estimate e = estimate(shapes[s], candidates, placed, eligibility);
      if (better(e, best)) {
        best = std::move(e);
        best_shape = s;
      }
    }
    if (best.placed.empty()) {
      break;
    }
    plan.by_shape[best_shape].count += best.nodes;
    plan.by_shape[best_shape].packed += best.packed;
    plan.nodes += best.nodes;
    for (std::size_t i : best.placed) {
      placed[i] = true;
    }
  }
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (!placed[i]) {
      plan.unplaceable.push_back(candidates[i].id);
    }
  }
  return plan;
}

}  // namespace dagadvisor::analysis
