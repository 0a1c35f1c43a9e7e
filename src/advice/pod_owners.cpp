#include "advice/pod_owners.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace dagadvisor::advice {
namespace {

// The characters Kubernetes writes pod-template-hash with (rand.SafeEncodeString).
constexpr std::string_view kHashAlphabet = "bcdfghjklmnpqrstvwxz2456789";
constexpr std::size_t kMaxHashLength = 10;

bool live(const model::Pod& pod) {
  return pod.phase == model::PodPhase::kPending || pod.phase == model::PodPhase::kRunning;
}

bool labelsMatch(const model::Pod& pod,
                 const std::vector<std::pair<std::string, std::string>>& selector) {
  return !selector.empty() && std::all_of(selector.begin(), selector.end(), [&](const auto& label) {
    return pod.labels.get(label.first) == std::optional<std::string_view>(label.second);
  });
}

bool looksLikeHash(std::string_view suffix) {
  return !suffix.empty() && suffix.size() <= kMaxHashLength &&
         std::all_of(suffix.begin(), suffix.end(),
                     [](char c) { return kHashAlphabet.find(c) != std::string_view::npos; });
}

// Whether workloadOfPod(pod) can be of `kind` at all, before building its owner's strings:
// podsOf walks every pod of the snapshot, once per patched object.
bool mayBeOfKind(const model::Pod& pod, const std::string& kind) {
  if (kind == "Deployment" || kind == "ReplicaSet") {
    return pod.owner_kind == "ReplicaSet";
  }
  if (kind == "Pod") {
    return pod.owner_kind.empty() || pod.owner_kind == "<none>";
  }
  return pod.owner_kind == kind;
}

// Run selectors by their first label: a pod can only match those whose first label it has,
// so each pod reads one label per distinct first key instead of matching every selector.
class SelectorsByFirstLabel {
 public:
  using Selector = std::vector<std::pair<std::string, std::string>>;

  explicit SelectorsByFirstLabel(const std::vector<Selector>& selectors) {
    for (const Selector& selector : selectors) {
      if (!selector.empty()) {
        by_first_[selector.front().first].emplace(selector.front().second, &selector);
      }
    }
  }

  bool anyMatches(const model::Pod& pod) const {
    for (const auto& [key, by_value] : by_first_) {
      const auto value = pod.labels.get(key);
      if (!value) {
        continue;
      }
      const auto [first, last] = by_value.equal_range(std::string(*value));
      for (auto it = first; it != last; ++it) {
        if (labelsMatch(pod, *it->second)) {
          return true;
        }
      }
    }
    return false;
  }

 private:
  std::map<std::string, std::multimap<std::string, const Selector*>> by_first_;
};

}  // namespace

std::optional<std::string> deploymentOf(const std::string& replica_set, const std::string& hash) {
  const auto dash = replica_set.rfind('-');
  if (dash == std::string::npos || dash == 0) {
    return std::nullopt;
  }
  const std::string_view suffix = std::string_view(replica_set).substr(dash + 1);
  const bool is_hash = hash.empty() ? looksLikeHash(suffix) : suffix == hash;
  return is_hash ? std::optional<std::string>(replica_set.substr(0, dash)) : std::nullopt;
}

PodOwner workloadOfPod(const model::Pod& pod) {
  if (pod.owner_kind.empty() || pod.owner_kind == "<none>") {  // kube-state-metrics' "no owner"
    return {"", pod.namespace_, "Pod", pod.name};
  }
  if (pod.owner_kind == "ReplicaSet") {
    const std::string hash(pod.labels.get("pod-template-hash").value_or(""));
    if (auto deployment = deploymentOf(pod.owner_name, hash)) {
      return {"", pod.namespace_, "Deployment", *deployment};
    }
  }
  return {"", pod.namespace_, pod.owner_kind, pod.owner_name};
}

std::optional<PodSelection> podsOf(const model::ClusterSnapshot& cluster,
                                   const PatchObject& object) {
  PodSelection selection{object.namespace_, {}, {}};
  for (const model::PodId id : cluster.podsIn(object.namespace_)) {
    const model::Pod& pod = cluster.pod(id);
    if (!live(pod) || !mayBeOfKind(pod, object.kind)) {
      continue;
    }
    const PodOwner owner = workloadOfPod(pod);
    const bool named =
        std::find(object.names.begin(), object.names.end(), owner.name) != object.names.end();
    if (owner.kind == object.kind && named) {
      selection.names.push_back(pod.name);
    }
  }
  if (selection.names.empty()) {
    return std::nullopt;
  }
  std::sort(selection.names.begin(), selection.names.end());
  return selection;
}

bool selects(const PodSelection& selection, const model::Pod& pod) {
  if (pod.namespace_ != selection.namespace_) {
    return false;
  }
  if (!selection.names.empty()) {
    return std::binary_search(selection.names.begin(), selection.names.end(), pod.name);
  }
  return labelsMatch(pod, selection.match_labels);
}

replay::PodMatch replayMatchOf(const PodSelection& pods) {
  replay::PodMatch match;
  match.namespace_ = pods.namespace_;
  match.labels = replay::LabelSelector::equals(pods.match_labels);
  for (const std::string& name : pods.names) {
    match.names.push_back(pods.namespace_ + "/" + name);
  }
  return match;
}

std::optional<PodSelection> podsOfDag(
    const model::ClusterSnapshot& cluster, const std::string& namespace_,
    const std::vector<std::pair<std::string, std::string>>& dag_selector,
    const std::vector<std::vector<std::pair<std::string, std::string>>>& run_selectors) {
  if (!dag_selector.empty()) {
    return PodSelection{namespace_, dag_selector, {}};
  }
  PodSelection selection{namespace_, {}, {}};
  const SelectorsByFirstLabel selectors(run_selectors);
  for (const model::PodId id : cluster.podsIn(namespace_)) {
    if (const model::Pod& pod = cluster.pod(id); selectors.anyMatches(pod)) {
      selection.names.push_back(pod.name);
    }
  }
  if (selection.names.empty()) {
    return std::nullopt;
  }
  std::sort(selection.names.begin(), selection.names.end());
  return selection;
}

std::vector<GpuWorkload> gpuWorkloads(const model::ClusterSnapshot& cluster,
                                      const std::function<bool(const model::Pod&)>& skip) {
  using Key = std::tuple<std::string, std::string, std::string>;  // namespace, kind, name
  std::map<Key, GpuWorkload> by_owner;
  for (const model::Pod& pod : cluster.pods()) {
    if (pod.requests.gpus <= 0 || !live(pod) || (skip && skip(pod))) {
      continue;
    }
    PodOwner owner = workloadOfPod(pod);
    if (owner.kind == "Pod") {  // one patch for a namespace's pods without an owner
      owner = {"", pod.namespace_, "", "namespace " + pod.namespace_};
    }
    GpuWorkload& workload = by_owner[{owner.namespace_, owner.kind, owner.name}];
    workload.owner = owner;
    workload.pods.namespace_ = pod.namespace_;
    workload.pods.names.push_back(pod.name);
  }
  std::vector<GpuWorkload> out;
  for (auto& [key, workload] : by_owner) {
    std::sort(workload.pods.names.begin(), workload.pods.names.end());
    out.push_back(std::move(workload));
  }
  return out;
}

}  // namespace dagadvisor::advice
