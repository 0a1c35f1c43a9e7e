#include "model/cluster_builder.h"

#include <algorithm>
#include <cmath>

namespace dagadvisor::model {
namespace {

using sources::SampleView;

std::string podKey(const SampleView& s) {
  std::string key(s.label("namespace"));
  key += '/';
  key += s.label("pod");
  key += '/';
  key += s.label("uid");
  return key;
}

// Adds one `resource` amount, in kube-state-metrics units (cores, bytes, integer GPUs).
void addResource(ResourceVector& v, std::string_view resource, double amount) {
  if (!std::isfinite(amount)) {
    return;
  }
  if (resource == "cpu") {
    v.cpu_millis += std::llround(amount * 1000.0);
  } else if (resource == "memory") {
    v.memory_bytes += std::llround(amount);
  } else if (resource == "nvidia_com_gpu") {
    v.gpus += std::llround(amount);
  }
}

// Copies every `<prefix>key` label of the sample into `out` as `key`.
void copyPrefixed(const SampleView& s, std::string_view prefix, LabelSet& out) {
  for (std::size_t i = 0; i < s.label_count; ++i) {
    const auto& [name, value] = s.labels[i];
    if (name.size() > prefix.size() && name.substr(0, prefix.size()) == prefix) {
      out.set(name.substr(prefix.size()), std::string(value));
    }
  }
}

PodPhase parsePhase(std::string_view text) {
  if (text == "Pending") {
    return PodPhase::kPending;
  }
  if (text == "Running") {
    return PodPhase::kRunning;
  }
  if (text == "Succeeded") {
    return PodPhase::kSucceeded;
  }
  if (text == "Failed") {
    return PodPhase::kFailed;
  }
  return PodPhase::kUnknown;
}

std::optional<UnixSeconds> timeValue(double v) {
  return std::isfinite(v) && v > 0 ? std::optional<UnixSeconds>(v) : std::nullopt;
}

bool isNodeQuery(QueryId id) {
  return id == QueryId::kNodeAllocatable || id == QueryId::kNodeLabels ||
         id == QueryId::kNodeTaints;
}

}  // namespace

void ClusterBuilder::add(QueryId id, const SampleView& sample) {
  if (isNodeQuery(id)) {
    if (!sample.label("node").empty()) {
      addNodeSample(id, sample);
    }
  } else if (!sample.label("pod").empty()) {
    addPodSample(id, sample);
  }
}

Node& ClusterBuilder::nodeFor(const SampleView& sample) {
  std::string name(sample.label("node"));
  auto [it, inserted] = nodes_.try_emplace(name);
  if (inserted) {
    it->second.name = std::move(name);
  }
  return it->second;
}

Pod* ClusterBuilder::podFor(const SampleView& sample) {
  auto [it, inserted] = pods_.try_emplace(podKey(sample));
  Pod& pod = it->second;
  if (inserted) {
    pod.namespace_ = sample.label("namespace");
    pod.name = sample.label("pod");
    pod.uid = sample.label("uid");
  }
  return &pod;
}

void ClusterBuilder::addNodeSample(QueryId id, const SampleView& sample) {
  Node& node = nodeFor(sample);
  switch (id) {
    case QueryId::kNodeAllocatable:
      addResource(node.allocatable, sample.label("resource"), sample.value);
      nodes_with_allocatable_.insert(node.name);
      break;
    case QueryId::kNodeLabels:
      copyPrefixed(sample, "label_", node.labels);
      break;
    case QueryId::kNodeTaints: {
      Taint taint{std::string(sample.label("key")), std::string(sample.label("value")),
                  std::string(sample.label("effect"))};
      const bool known = std::any_of(node.taints.begin(), node.taints.end(), [&](const Taint& t) {
        return t.key == taint.key && t.effect == taint.effect;
      });
      if (taint.key == "node.kubernetes.io/unschedulable") {
        node.unschedulable = true;
      }
      if (!known) {
        node.taints.push_back(std::move(taint));
      }
      break;
    }
    default:
      break;
  }
}

void ClusterBuilder::addPodSample(QueryId id, const SampleView& sample) {
  Pod& pod = *podFor(sample);
  switch (id) {
    case QueryId::kPodInfo:
      pods_with_info_.insert(podKey(sample));
      // A pod has one info series before binding (node="") and one after; the bound one wins.
      if (pod.node_name.empty()) {
        pod.node_name = sample.label("node");
      }
      pod.owner_kind =
          pod.owner_kind.empty() ? std::string(sample.label("created_by_kind")) : pod.owner_kind;
      pod.owner_name =
          pod.owner_name.empty() ? std::string(sample.label("created_by_name")) : pod.owner_name;
      pod.priority_class = sample.label("priority_class");
      break;
    case QueryId::kPodLive:
      live_pods_.insert(podKey(sample));
      break;
    case QueryId::kPodPhase:
      pod.phase = parsePhase(sample.label("phase"));
      break;
    case QueryId::kPodRequests:
      addResource(pod.requests, sample.label("resource"), sample.value);
      break;
    case QueryId::kPodLabels:
      copyPrefixed(sample, "label_", pod.labels);
      break;
    case QueryId::kPodAnnotations:
      copyPrefixed(sample, "annotation_", pod.annotations);
      break;
    case QueryId::kPodOwner:
      // kube_pod_owner is more precise than kube_pod_info's created_by_* and overrides it.
      pod.owner_kind = sample.label("owner_kind");
      pod.owner_name = sample.label("owner_name");
      break;
    case QueryId::kPodCreated:
      pod.created = timeValue(sample.value);
      break;
    case QueryId::kPodScheduled:
      pod.scheduled = timeValue(sample.value);
      break;
    case QueryId::kPodStarted:
      pod.started = timeValue(sample.value);
      break;
    case QueryId::kPodCompleted:
      pod.finished = timeValue(sample.value);
      break;
    default:
      break;
  }
}

ClusterSnapshot ClusterBuilder::build() && {
  std::vector<Node> nodes;
  nodes.reserve(nodes_with_allocatable_.size());
  for (auto& [name, node] : nodes_) {
    if (nodes_with_allocatable_.count(name) != 0) {
      nodes.push_back(std::move(node));
    }
  }
  // Deterministic order, so reports and ids do not depend on hash-map iteration.
  std::sort(nodes.begin(), nodes.end(),
            [](const Node& a, const Node& b) { return a.name < b.name; });

  std::vector<Pod> pods;
  pods.reserve(pods_with_info_.size());
  for (auto& [key, pod] : pods_) {
    if (pods_with_info_.count(key) == 0) {
      continue;
    }
    // A pod deleted before the analysis time no longer holds or waits for anything; only its
    // history (timestamps, placement) still counts.
    const bool gone = live_pods_.count(key) == 0;
    if (gone && (pod.phase == PodPhase::kPending || pod.phase == PodPhase::kRunning)) {
      pod.phase = pod.finished ? PodPhase::kSucceeded : PodPhase::kUnknown;
    }
    pods.push_back(std::move(pod));
  }
  std::sort(pods.begin(), pods.end(), [](const Pod& a, const Pod& b) {
    return std::tie(a.namespace_, a.name, a.uid) < std::tie(b.namespace_, b.name, b.uid);
  });
  return ClusterSnapshot(at_, std::move(nodes), std::move(pods));
}

}  // namespace dagadvisor::model
