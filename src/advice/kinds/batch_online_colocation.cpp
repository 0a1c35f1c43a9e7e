#include "advice/kinds/batch_online_colocation.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "advice/engine_patch.h"
#include "advice/kinds/finding_groups.h"
#include "advice/patch_yaml.h"
#include "advice/pod_owners.h"
#include "analysis/detectors/batch_online_colocation.h"
#include "analysis/packing.h"
#include "common/view_hash.h"

namespace dagadvisor::advice {

using analysis::BatchOnlineColocationEvidence;
using nlohmann::json;

namespace {

using ServiceViews = ViewTriple;  // namespace, owner kind, owner name

// Compares stored refs and views alike as views. std::less<> would compare a tuple of strings
// with a tuple of views through tuple's mixed-type operator<, which libstdc++ 12 gives GCC but
// not clang (the advice then did not compile with clang).
struct ServiceRefLess {
  using is_transparent = void;

  template <typename A, typename B>
  bool operator()(const A& a, const B& b) const {
    return views(a) < views(b);
  }

  template <typename Tuple>
  static ServiceViews views(const Tuple& ref) {
    return {std::get<0>(ref), std::get<1>(ref), std::get<2>(ref)};
  }
};

// ns, kind, name; found by views, no strings copied per pod
using ServiceRefs = std::set<std::tuple<std::string, std::string, std::string>, ServiceRefLess>;

ServiceViews ownerOf(const model::Pod& pod) {
  return {pod.namespace_, pod.owner_kind, pod.owner_name};
}

// The nodes the pools are made of: schedulable, without GPUs (GPU nodes are another pool).
bool poolable(const model::Node& node) {
  return !node.unschedulable && !node.hasGpus();
}

// The nodes one service runs on now, most service requests first, which of them are in the
// online pool, and per request shape where first fit can start looking. Room only shrinks, so a
// node that did not fit a shape never will: a shape's search in the pool resumes where it last
// stopped, unless a node before that joined the pool since; a node outside the pool keeps its
// room until a pod lands on it (then it is in the pool), so the search outside never goes back.
// At twice the reference size (4,000 pods a service on ~3,000 nodes) scanning the hosts from
// the first for every pod was a fifth of a window cycle.
struct ServiceHosts {
  struct Shape {
    model::ResourceVector requests;
    std::size_t pool_from = 0;     // no node of the pool before it fits
    std::size_t outside_from = 0;  // no node outside the pool before it fits
  };
  std::vector<model::NodeId> nodes;
  std::vector<std::uint64_t> in_pool;  // a bit per position in `nodes`
  std::vector<Shape> shapes;

  Shape& shapeOf(const model::ResourceVector& requests) {
    for (Shape& shape : shapes) {
      if (shape.requests == requests) {
        return shape;
      }
    }
    return shapes.emplace_back(Shape{requests});
  }

  /// The first position at or after `from` whose node is in the pool, or nodes.size().
  std::size_t nextInPool(std::size_t from) const {
    for (std::size_t word = from / 64; word < in_pool.size(); ++word) {
      std::uint64_t bits = in_pool[word];
      if (word == from / 64) {
        bits &= ~std::uint64_t{0} << (from % 64);
      }
      if (bits != 0) {
        return word * 64 + static_cast<std::size_t>(std::countr_zero(bits));
      }
    }
    return nodes.size();
  }

  void joinPool(std::size_t at) {
    in_pool[at / 64] |= std::uint64_t{1} << (at % 64);
    for (Shape& shape : shapes) {
      shape.pool_from = std::min(shape.pool_from, at);
    }
  }
};

struct ServicePod {
  const model::Pod* pod;
  ServiceHosts* hosts;
};

// Where each node is among the hosts of each service that runs on it.
using HostPositions = std::vector<std::vector<std::pair<ServiceHosts*, std::size_t>>>;

// First fit of `requests` on `hosts`: the first node of the online pool that fits, else the first
// node outside it that fits; kNoNode when none does.
model::NodeId firstFit(ServiceHosts& hosts, const model::ResourceVector& requests,
                       const std::vector<model::ResourceVector>& room,
                       const std::vector<bool>& online) {
  ServiceHosts::Shape& shape = hosts.shapeOf(requests);
  const std::size_t end = hosts.nodes.size();
  for (std::size_t at = hosts.nextInPool(shape.pool_from); at < end;
       at = hosts.nextInPool(at + 1)) {
    if (room[hosts.nodes[at]].fits(requests)) {
      shape.pool_from = at;
      return hosts.nodes[at];
    }
  }
  shape.pool_from = end;
  for (; shape.outside_from < end; ++shape.outside_from) {
    const model::NodeId id = hosts.nodes[shape.outside_from];
    if (!online[id] && room[id].fits(requests)) {
      return id;
    }
  }
  return model::kNoNode;
}

// Puts `id` in the online pool, and tells every service that runs on it.
void addToPool(model::NodeId id, std::vector<bool>& online, const HostPositions& positions) {
  online[id] = true;
  for (const auto& [hosts, at] : positions[id]) {
    hosts->joinPool(at);
  }
}

// First-fit decreasing of the service pods onto `room` (each node's), each only onto its own
// service's hosts (firstFit); the nodes they land on are the online pool.
std::vector<bool> packServicePods(const std::vector<ServicePod>& pods,
                                  std::vector<model::ResourceVector> room,
                                  const HostPositions& positions) {
  std::vector<bool> online(room.size(), false);
  std::vector<model::ResourceVector> demands;
  for (const ServicePod& service_pod : pods) {
    demands.push_back(service_pod.pod->requests);
  }
  analysis::Bins nodes{.room = std::move(room)};
  nodes.first_fit = [&](std::size_t d, const std::vector<model::ResourceVector>& free) {
    const model::NodeId id = firstFit(*pods[d].hosts, demands[d], free, online);
    return id == model::kNoNode ? analysis::kNoBin : std::size_t{id};
  };
  nodes.landed = [&](std::size_t, std::size_t id) {
    if (!online[id]) {
      addToPool(static_cast<model::NodeId>(id), online, positions);
    }
  };
  // Largest first by CPU requests alone, the measure the hosts are ranked by as well.
  analysis::firstFitDecreasing(
      demands,
      [](const model::ResourceVector& a, const model::ResourceVector& b) {
        return a.cpu_millis > b.cpu_millis;
      },
      nodes);
  return online;
}

// The online pool: the fewest of the nodes the services run on now that hold all their pods,
// first fit, largest pod first, onto the nodes carrying most service requests first, each pod
// only onto a node its own service runs on now (where its selectors let it). The rest is batch.
std::vector<bool> onlinePool(const model::ClusterSnapshot& cluster, const ServiceRefs& services) {
  const std::size_t n = cluster.nodes().size();
  std::vector<model::ResourceVector> room(n);
  std::vector<std::int64_t> service_cpu(n, 0);
  // Every service, by views into `services`, found by each bound pod's owner with one hash (two
  // ordered lookups by three strings were most of this function at the reference size). Its
  // values stay where they are, so each pod keeps its own; the order it iterates in decides
  // nothing below.
  std::unordered_map<ServiceViews, ServiceHosts, ViewTripleHash> hosts;
  hosts.reserve(services.size());
  for (const auto& service : services) {
    hosts.try_emplace(ServiceRefLess::views(service));
  }
  std::vector<ServicePod> pods;
  for (model::NodeId id = 0; id < n; ++id) {
    room[id] = cluster.node(id).allocatable;
    for (model::PodId pid : cluster.podsOn(id)) {
      const model::Pod& pod = cluster.pod(pid);
      if (!pod.holdsResources()) {
        continue;
      }
      if (pod.owner_kind == "DaemonSet") {
        room[id] -= pod.requests;  // it stays wherever the node goes
        continue;
      }
      const auto service = hosts.find(ownerOf(pod));
      if (service != hosts.end() && poolable(cluster.node(id))) {
        service_cpu[id] += pod.requests.cpu_millis;
        ServiceHosts& on = service->second;
        if (on.nodes.empty() || on.nodes.back() != id) {  // nodes come in ascending order
          on.nodes.push_back(id);
        }
        pods.push_back({&pod, &on});
      }
    }
  }
  std::vector<model::NodeId> order;
  for (model::NodeId id = 0; id < n; ++id) {
    if (service_cpu[id] > 0) {
      order.push_back(id);
    }
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](auto a, auto b) { return service_cpu[a] > service_cpu[b]; });
  std::vector<std::size_t> rank(n, n);  // n: not in `order`
  for (std::size_t r = 0; r < order.size(); ++r) {
    rank[order[r]] = r;
  }
  HostPositions positions(n);
  for (auto& [service, on] : hosts) {
    std::erase_if(on.nodes, [&](model::NodeId id) { return rank[id] == n; });
    std::sort(on.nodes.begin(), on.nodes.end(), [&](auto a, auto b) { return rank[a] < rank[b]; });
    on.in_pool.assign((on.nodes.size() + 63) / 64, 0);
    for (std::size_t at = 0; at < on.nodes.size(); ++at) {
      positions[on.nodes[at]].emplace_back(&on, at);
    }
  }
  return packServicePods(pods, std::move(room), positions);
}

struct Pools {
  std::vector<std::string> online;
  std::vector<std::string> batch;
};

Pools poolsOf(const model::ClusterSnapshot& cluster, const ServiceRefs& services) {
  const std::vector<bool> online = onlinePool(cluster, services);
  Pools pools;
  for (model::NodeId id = 0; id < cluster.nodes().size(); ++id) {
    if (poolable(cluster.node(id))) {
      (online[id] ? pools.online : pools.batch).push_back(cluster.node(id).name);
    }
  }
  return pools;
}

const auto kPin = [](const std::string& label, const std::string& pool) {
  return [label, pool](const PodSpecSite& site) {
    return nodeSelectorPatches(site.path, label, pool);
  };
};

struct PoolAdvice {
  std::vector<Patch> patches;
  replay::ChangeSet changes;  // the same in the replay's terms
};

// Pins the pods `pods` selects to `pool` (step 2), in the patch and in the replay.
void pin(PoolAdvice& out, const PodOwner& owner, const std::string& label, const std::string& pool,
         std::optional<PodSelection> pods) {
  if (pods) {
    out.changes.changes.push_back(replay::SetNodeSelector{replayMatchOf(*pods), label, pool});
  }
  out.patches.push_back(podChangePatch(owner, PodField::kNodeSelector,
                                       "then require " + label + "=" + pool, kPin(label, pool),
                                       std::move(pods), 2));
}

// Step 1 labels both pools, so that no selector of step 2 names a label no node has; step 2
// pins each DAG's tasks where its engine defines them (their pods by the DAG's selector), and
// each service through its workload, whose new pod template replaces its pods (in the replay,
// their rollout).
PoolAdvice poolAdvice(const std::string& label, const Pools& pools,
                      const std::vector<analysis::RunScope>& dags, const ServiceRefs& services,
                      const model::ClusterSnapshot& cluster) {
  PoolAdvice out;
  for (const auto& [nodes, pool] : {std::pair{&pools.online, "online"}, {&pools.batch, "batch"}}) {
    if (!nodes->empty()) {
      out.patches.push_back(
          nodeLabelPatch(*nodes, label, pool,
                         std::string("first, label the ") + pool + " pool " + label + "=" + pool));
      out.changes.changes.push_back(replay::SetNodeLabel{{*nodes, {}}, label, pool});
    }
  }
  for (const analysis::RunScope& dag : dags) {
    pin(out, {dag.engine, dag.namespace_, "", dag.dag}, label, "batch",
        podsOfDag(cluster, dag.namespace_, dag.dag_selector, {dag.selector}));
  }
  std::vector<PodOwner> owners;
  std::vector<PatchObject> objects;
  for (const auto& [ns, kind, name] : services) {
    owners.push_back({"", ns, kind, name});
    objects.push_back(podSpecSite(owners.back(), PodField::kNodeSelector).object);
  }
  std::vector<std::optional<PodSelection>> pods = podsOfEach(cluster, objects);
  for (std::size_t i = 0; i < owners.size(); ++i) {
    pin(out, owners[i], label, "online", std::move(pods[i]));
  }
  for (const auto& [ns, kind, name] : services) {
    out.changes.changes.push_back(replay::RecreatePods{{ns, {}, kind, name}});
  }
  return out;
}

}  // namespace

// One root cause: batch and online workloads share one pool. The fix separates the pools.
std::vector<Recommendation> adviseBatchOnlineColocation(const FindingList& findings,
                                                        const config::Config& config,
                                                        const model::ClusterSnapshot& cluster) {
  if (findings.empty()) {
    return {};
  }
  const std::string& label = config.cluster_labels.workload;
  Recommendation rec;
  rec.kind = std::string(BatchOnlineColocationEvidence::kKind);
  rec.target = "cluster/" + config.analysis.cluster;
  const json nodes = cover(rec, findings);
  std::set<std::string> services;
  ServiceRefs service_refs;
  std::set<std::string> dags;
  std::vector<analysis::RunScope> dag_scopes;
  std::set<std::string> scoped;
  double shared_cores = 0;
  for (const analysis::Finding* f : findings) {
    shared_cores += f->impact;
    const auto& e = f->evidenceAs<BatchOnlineColocationEvidence>();
    for (const analysis::ColocatedService& s : e.services) {
      services.insert(s.namespace_ + "/" + s.kind + "/" + s.name);
      service_refs.emplace(s.namespace_, s.kind, s.name);
    }
    dags.insert(e.dags.begin(), e.dags.end());
    for (const analysis::RunScope& scope : e.dag_scopes) {
      if (scoped.insert(scope.namespace_ + "/" + scope.dag).second) {
        dag_scopes.push_back(scope);
      }
    }
  }
  for (const std::string& key : dags) {  // no run rebuilt: the pods by the configured DAG label
    if (scoped.insert(key).second) {
      const auto slash = key.find('/');
      const std::string dag = key.substr(slash + 1);
      dag_scopes.push_back(
          {key.substr(0, slash), dag, "", {}, {{config.workflow_labels.dag_label, dag}}, "labels"});
    }
  }
  rec.title = std::to_string(findings.size()) + " busy node(s) shared by workflow tasks of " +
              std::to_string(dags.size()) + " DAG(s) and " + std::to_string(services.size()) +
              " long-running service(s)";
  const Pools pools = poolsOf(cluster, service_refs);
  rec.action = "Split the nodes without GPUs into two pools: first label " +
               std::to_string(pools.online.size()) + " node(s) " + label +
               "=online (the fewest of those the services run on now that hold all their pods) "
               "and the other " +
               std::to_string(pools.batch.size()) + " " + label +
               "=batch (step 1), then pin the workflow tasks to the batch pool and the services "
               "to the online pool with the nodeSelectors of step 2 (selectors before labels "
               "would leave the pods pending). The batch pool is smaller than the nodes the "
               "tasks share now: the replayed prediction shows what that costs the runs. Where "
               "one pool must serve both, run the heavy DAGs in a time window when services are "
               "quiet (a CronJob schedule) instead.";
  PoolAdvice advice = poolAdvice(label, pools, dag_scopes, service_refs, cluster);
  rec.patches = std::move(advice.patches);
  rec.changes = std::move(advice.changes);
  rec.impact_score = shared_cores;
  rec.impact = "about " + std::to_string(static_cast<long long>(shared_cores)) +
               " CPU core(s) of requests stop competing between batch and online work";
  rec.evidence = {{"nodes", nodes},
                  {"services", std::vector<std::string>(services.begin(), services.end())},
                  {"dags", std::vector<std::string>(dags.begin(), dags.end())},
                  {"online_pool", pools.online},
                  {"batch_pool", pools.batch}};
  return {std::move(rec)};
}

}  // namespace dagadvisor::advice
