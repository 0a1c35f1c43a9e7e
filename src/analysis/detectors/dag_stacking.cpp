#include "analysis/detectors/dag_stacking.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "analysis/detectors/detector_util.h"

namespace dagadvisor::analysis {
namespace {

using model::ClusterSnapshot;
using model::Node;
using model::NodeId;
using nlohmann::json;

constexpr std::size_t kMaxListedPeers = 10;

struct Stack {
  std::vector<std::string> task_ids;
  std::int64_t run_cpu_millis = 0;
};

double cpuShare(std::int64_t millis, const Node& node) {
  return node.allocatable.cpu_millis > 0
             ? static_cast<double>(millis) / static_cast<double>(node.allocatable.cpu_millis)
             : 0.0;
}

// Tasks of the run that hold resources on a node now; finished or unbound ones do not stack.
std::map<NodeId, Stack> runningByNode(const graph::RunGraph& rg, const ClusterSnapshot& cluster) {
  std::map<NodeId, Stack> out;
  for (const model::Task& task : rg.run->tasks) {
    if (task.pod >= cluster.pods().size()) {
      continue;
    }
    const model::Pod& pod = cluster.pod(task.pod);
    if (!pod.holdsResources()) {
      continue;
    }
    Stack& stack = out[pod.node];
    stack.task_ids.push_back(task.id);
    stack.run_cpu_millis += pod.requests.cpu_millis;
  }
  return out;
}

bool blocksScheduling(const model::Taint& t) {
  return t.effect == "NoSchedule" || t.effect == "NoExecute";
}

// A peer can take the run's pods when it is in the same pool (or both have none) and every
// taint that keeps pods off it is one the stacked node carries too, so the pods tolerate it.
bool eligiblePeer(const Node& node, const Node& peer, const std::string& pool_label) {
  if (peer.unschedulable || node.labels.get(pool_label) != peer.labels.get(pool_label)) {
    return false;
  }
  return std::all_of(peer.taints.begin(), peer.taints.end(), [&](const model::Taint& t) {
    return !blocksScheduling(t) ||
           std::any_of(node.taints.begin(), node.taints.end(), [&](const model::Taint& own) {
             return own.key == t.key && own.value == t.value && own.effect == t.effect;
           });
  });
}

std::vector<StackIdlePeer> idlePeers(const ClusterSnapshot& cluster, NodeId stacked,
                                     const analysis::DagStackingSettings& params,
                                     const std::string& pool_label) {
  std::vector<std::pair<double, NodeId>> peers;
  for (NodeId id = 0; id < cluster.nodes().size(); ++id) {
    if (id == stacked || !eligiblePeer(cluster.node(stacked), cluster.node(id), pool_label)) {
      continue;
    }
    const double free_share = cpuShare(cluster.freeOn(id).cpu_millis, cluster.node(id));
    if (cluster.node(id).allocatable.cpu_millis > 0 &&
        free_share >= params.min_peer_free_cpu_share) {
      peers.emplace_back(free_share, id);
    }
  }
  std::stable_sort(peers.begin(), peers.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<StackIdlePeer> out;
  for (const auto& [free_share, id] : peers) {
    out.push_back({cluster.node(id).name, cluster.freeOn(id).cpu_millis, free_share});
  }
  return out;
}

StackedNode stackedNode(const Node& node, const Stack& stack, double node_share,
                        const std::string& pool_label, std::vector<StackIdlePeer> peers) {
  const auto pool = node.labels.get(pool_label);
  StackedNode out;
  out.node = node.name;
  out.pool = pool ? std::optional(std::string(*pool)) : std::nullopt;
  out.task_ids = stack.task_ids;
  out.run_cpu_millis = stack.run_cpu_millis;
  out.node_cpu_requested_share = node_share;
  out.idle_peer_count = peers.size();
  if (peers.size() > kMaxListedPeers) {
    peers.erase(peers.begin() + kMaxListedPeers, peers.end());
  }
  out.idle_peers = std::move(peers);
  return out;
}

json peerJson(const StackIdlePeer& peer) {
  return {{"node", peer.node},
          {"free_cpu_millis", peer.free_cpu_millis},
          {"free_cpu_share", peer.free_cpu_share}};
}

json stackJson(const StackedNode& stack) {
  json peers = json::array();
  for (const StackIdlePeer& peer : stack.idle_peers) {
    peers.push_back(peerJson(peer));
  }
  return {{"node", stack.node},
          {"pool", stack.pool ? json(*stack.pool) : json(nullptr)},
          {"tasks", stack.tasks()},
          {"task_ids", stack.task_ids},
          {"run_cpu_millis", stack.run_cpu_millis},
          {"node_cpu_requested_share", stack.node_cpu_requested_share},
          {"idle_peer_count", stack.idle_peer_count},
          {"idle_peers", std::move(peers)}};
}

std::string summaryLine(const model::WorkflowRun& run, const std::vector<StackedNode>& stacks) {
  const StackedNode& top = stacks.front();
  char buf[320];
  std::snprintf(buf, sizeof buf,
                "%s: %zu tasks running together on %s (%.0f%% of its CPU requested) while %zu "
                "node(s) of its pool have CPU free; %zu node(s) stacked",
                run.id().c_str(), top.tasks(), top.node.c_str(), top.node_cpu_requested_share * 100,
                top.idle_peer_count, stacks.size());
  return buf;
}

}  // namespace

json DagStackingEvidence::toJson() const {
  json stacks = json::array();
  for (const StackedNode& stack : stacked_nodes) {
    stacks.push_back(stackJson(stack));
  }
  json out = {{"engine", engine}, {"stacked_tasks", stacked_tasks}, {"stacked_nodes", stacks}};
  scope.writeJson(out);
  return out;
}

const DetectorInfo& DagStacking::info() const {
  static const DetectorInfo kInfo{
      DagStackingEvidence::kKind,
      "Many running tasks of one DAG run on one busy node while peers idle"};
  return kInfo;
}

void DagStacking::analyze(const AnalysisInput& input, FindingSink& out) const {
  const auto& params = input.config.detectors.get<analysis::DagStackingSettings>();
  const ClusterSnapshot& cluster = input.cluster;
  if (input.runs.empty()) {
    out.noAdvice("no workflow runs were rebuilt");
    return;
  }
  const auto min_tasks = static_cast<std::size_t>(params.min_tasks_per_node);
  for (const graph::RunGraph& rg : input.runs) {
    if (rg.run == nullptr) {
      continue;
    }
    std::vector<StackedNode> stacks;
    std::size_t stacked_tasks = 0;
    for (const auto& [node_id, stack] : runningByNode(rg, cluster)) {
      const Node& node = cluster.node(node_id);
      const double node_share = cpuShare(cluster.requestedOn(node_id).cpu_millis, node);
      if (stack.task_ids.size() < min_tasks || node.allocatable.cpu_millis <= 0 ||
          node_share < params.min_node_cpu_share) {
        continue;
      }
      std::vector<StackIdlePeer> peers =
          idlePeers(cluster, node_id, params, input.config.cluster_labels.pool);
      if (peers.empty()) {
        continue;
      }
      stacked_tasks += stack.task_ids.size();
      stacks.push_back(
          stackedNode(node, stack, node_share, input.config.cluster_labels.pool, std::move(peers)));
    }
    if (stacks.empty()) {
      continue;
    }
    std::stable_sort(stacks.begin(), stacks.end(), [](const StackedNode& a, const StackedNode& b) {
      return a.tasks() > b.tasks();
    });
    const model::WorkflowRun& run = *rg.run;
    const std::string summary = summaryLine(run, stacks);
    DagStackingEvidence evidence;
    evidence.scope = runScope(run);
    evidence.engine = run.engine;
    evidence.stacked_tasks = stacked_tasks;
    evidence.stacked_nodes = std::move(stacks);
    Finding finding = findingOf(std::move(evidence));
    finding.severity = Severity::kWarning;
    finding.target = "run/" + run.id();
    finding.summary = summary;
    finding.impact = static_cast<double>(stacked_tasks);
    out.emit(std::move(finding));
  }
}

std::vector<config::Field> DagStackingSettings::fields() {
  return {
      {"enabled", &enabled, config::Rule::kNone, "Turn this check on or off."},
      {"min_tasks_per_node", &min_tasks_per_node, config::Rule::kAtLeastTwo,
       "A run is reported when at least this many of its tasks are running on one node at the time "
       "of the analysis..."},
      {"min_node_cpu_share", &min_node_cpu_share, config::Rule::kShare,
       "...the CPU requested on that node (by all its pods) is at least this share of what it can "
       "give (a number from 0 to 1)..."},
      {"min_peer_free_cpu_share", &min_peer_free_cpu_share, config::Rule::kShare,
       "...and another node of the same pool, that the run's pods may use, has at least this share "
       "of its CPU unrequested."},
  };
}

}  // namespace dagadvisor::analysis
