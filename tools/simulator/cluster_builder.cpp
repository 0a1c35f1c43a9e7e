#include <cstdio>

#include "builders.h"
#include "rng.h"

namespace dagadvisor::sim {
namespace {

// Long-running objects were created days before the window, as in a real cluster.
constexpr double kDaemonSetCreated = -7 * 86400.0;
constexpr double kDeploymentCreated = -2 * 86400.0;

Resources allocatableOf(const NodePool& pool) {
  Resources a = pool.capacity;
  a.cpu = pool.capacity.cpu - pool.systemReservedCpu;
  a.memory = pool.capacity.memory * (1.0 - pool.systemReservedMemory);
  return a;
}

std::string nodeName(const NodePool& pool, int index) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "-%03d", index);
  return pool.name + buf;
}

std::string nodeIp(int poolIndex, int index) {
  return "10." + std::to_string(poolIndex + 1) + "." + std::to_string(index / 250) + "." +
         std::to_string(index % 250 + 1);
}

Pod daemonSetPod(const Scenario& s, const DaemonSetSpec& ds, int dsIndex, const Node& node,
                 int nodeIndex) {
  Pod p;
  p.kind = PodKind::kDaemonSet;
  p.ns = ds.ns;
  p.name = ds.name + "-" + nameSuffix(hashKeys(s.seed, 11, dsIndex, nodeIndex), 5);
  p.uid = makeUid(hashKeys(s.seed, 12, dsIndex, nodeIndex));
  p.container = ds.name;
  p.ownerKind = "DaemonSet";
  p.ownerName = ds.name;
  p.labels = {{"app.kubernetes.io/name", ds.name}, {"controller-revision-hash", "7d9f8c6b5"}};
  p.request = ds.request;
  p.request.gpu = 0;
  p.request.pods = 1;
  p.toleratesEverything = true;
  p.pinnedNode = node.name;
  p.cpuUtil = ds.cpuUtil;
  p.created = kDaemonSetCreated + nodeIndex;
  return p;
}

Pod deploymentPod(const Scenario& s, const DeploymentSpec& d, int dIndex, int replica,
                  Policy policy) {
  std::string hash = nameSuffix(hashKeys(s.seed, 21, dIndex), 10);
  Pod p;
  p.kind = PodKind::kDeployment;
  p.ns = d.ns;
  p.name = d.name + "-" + hash + "-" + nameSuffix(hashKeys(s.seed, 22, dIndex, replica), 5);
  p.uid = makeUid(hashKeys(s.seed, 23, dIndex, replica));
  p.container = d.name;
  p.ownerKind = "ReplicaSet";
  p.ownerName = d.name + "-" + hash;
  p.labels = {{"app", d.name}, {"pod-template-hash", hash}};
  p.request = d.request;
  p.request.pods = 1;
  p.cpuUtil = d.cpuUtil;
  p.toleratesGpuTaint = d.request.gpu > 0;
  if (policy == Policy::kRemedied && s.remedies.nodePools) {
    p.requiredNodeType = d.nodeType;
  }
  return p;
}

}  // namespace

std::string nameSuffix(std::uint64_t key, int length) {
  static constexpr char kAlphabet[] = "bcdfghjklmnpqrstvwxz2456789";
  Rng rng(key);
  std::string out;
  for (int i = 0; i < length; ++i) {
    out += kAlphabet[rng.below(sizeof kAlphabet - 1)];
  }
  return out;
}

std::string makeUid(std::uint64_t key) {
  Rng rng(key);
  char buf[40];
  std::uint64_t a = rng.next();
  std::uint64_t b = rng.next();
  std::snprintf(buf, sizeof buf, "%08x-%04x-4%03x-%04x-%012llx", static_cast<unsigned>(a >> 32),
                static_cast<unsigned>((a >> 16) & 0xffff), static_cast<unsigned>(a & 0xfff),
                static_cast<unsigned>(0x8000 | (b >> 52 & 0x3fff)),
                static_cast<unsigned long long>(b & 0xffffffffffffULL));
  return buf;
}

std::vector<Node> buildNodes(const Scenario& s, Policy policy) {
  std::vector<Node> nodes;
  for (std::size_t pi = 0; pi < s.nodePools.size(); ++pi) {
    const NodePool& pool = s.nodePools[pi];
    for (int i = 0; i < pool.count; ++i) {
      Node n;
      n.name = nodeName(pool, i);
      n.pool = pool.name;
      n.nodeType = pool.nodeType;
      n.accelerator = pool.accelerator;
      n.zone = s.zones[static_cast<std::size_t>(i) % s.zones.size()];
      n.ip = nodeIp(static_cast<int>(pi), i);
      n.gpuModel = pool.gpuModel;
      n.capacity = pool.capacity;
      n.allocatable = allocatableOf(pool);
      n.taints = pool.taints;
      if (policy == Policy::kRemedied && s.remedies.gpuTaints && pool.capacity.gpu > 0) {
        n.taints.push_back({kGpuTaintKey, "present", "NoSchedule"});
      }
      n.gpuOwner.assign(static_cast<std::size_t>(pool.capacity.gpu), -1);
      nodes.push_back(std::move(n));
    }
  }
  return nodes;
}

std::vector<Pod> buildLongRunningPods(const Scenario& s, Policy policy,
                                      const std::vector<Node>& nodes) {
  std::vector<Pod> pods;
  for (std::size_t di = 0; di < s.daemonSets.size(); ++di) {
    for (std::size_t ni = 0; ni < nodes.size(); ++ni) {
      pods.push_back(
          daemonSetPod(s, s.daemonSets[di], static_cast<int>(di), nodes[ni], static_cast<int>(ni)));
    }
  }
  double t = kDeploymentCreated;
  for (std::size_t di = 0; di < s.deployments.size(); ++di) {
    for (int r = 0; r < s.deployments[di].replicas; ++r) {
      Pod p = deploymentPod(s, s.deployments[di], static_cast<int>(di), r, policy);
      p.created = t;
      t += 0.5;
      pods.push_back(std::move(p));
    }
  }
  return pods;
}

}  // namespace dagadvisor::sim
