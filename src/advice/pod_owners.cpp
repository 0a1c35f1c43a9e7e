#include "advice/pod_owners.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

#include "common/view_hash.h"

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

// deploymentOf, as a view into `replica_set`.
std::optional<std::string_view> deploymentNameOf(std::string_view replica_set,
                                                 std::string_view hash) {
  const auto dash = replica_set.rfind('-');
  if (dash == std::string_view::npos || dash == 0) {
    return std::nullopt;
  }
  const std::string_view suffix = replica_set.substr(dash + 1);
  const bool is_hash = hash.empty() ? looksLikeHash(suffix) : suffix == hash;
  return is_hash ? std::optional<std::string_view>(replica_set.substr(0, dash)) : std::nullopt;
}

// workloadOfPod's kind and name, as views into the pod and literals: no string built.
struct WorkloadName {
  std::string_view kind;
  std::string_view name;
};

WorkloadName workloadNameOf(const model::Pod& pod) {
  if (pod.owner_kind.empty() || pod.owner_kind == "<none>") {  // kube-state-metrics' "no owner"
    return {"Pod", pod.name};
  }
  if (pod.owner_kind == "ReplicaSet") {
    if (auto deployment =
            deploymentNameOf(pod.owner_name, pod.labels.get("pod-template-hash").value_or(""))) {
      return {"Deployment", *deployment};
    }
  }
  return {pod.owner_kind, pod.owner_name};
}

// Whether workloadOfPod(pod) can be of `kind` at all, before reading its pod-template-hash.
bool mayBeOfKind(const model::Pod& pod, std::string_view kind) {
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
  const auto deployment = deploymentNameOf(replica_set, hash);
  return deployment ? std::optional<std::string>(*deployment) : std::nullopt;
}

PodOwner workloadOfPod(const model::Pod& pod) {
  const WorkloadName workload = workloadNameOf(pod);
  return {"", pod.namespace_, std::string(workload.kind), std::string(workload.name)};
}

std::optional<PodSelection> podsOf(const model::ClusterSnapshot& cluster,
                                   const PatchObject& object) {
  return std::move(podsOfEach(cluster, {object}).front());
}

std::vector<std::optional<PodSelection>> podsOfEach(const model::ClusterSnapshot& cluster,
                                                    const std::vector<PatchObject>& objects) {
  // ns, kind, name → objects; looked up for each live pod of the namespaces, in no order
  std::unordered_map<ViewTriple, std::vector<std::size_t>, ViewTripleHash> wanted;
  std::set<std::string_view> namespaces;
  std::set<std::string_view> kinds;
  for (std::size_t i = 0; i < objects.size(); ++i) {
    const PatchObject& object = objects[i];
    for (const std::string& name : object.names) {
      std::vector<std::size_t>& of = wanted[{object.namespace_, object.kind, name}];
      if (of.empty() || of.back() != i) {
        of.push_back(i);
      }
    }
    namespaces.insert(object.namespace_);
    kinds.insert(object.kind);
  }
  std::vector<std::vector<std::string>> names(objects.size());
  for (const std::string_view namespace_ : namespaces) {
    for (const model::PodId id : cluster.podsIn(namespace_)) {
      const model::Pod& pod = cluster.pod(id);
      if (!live(pod) || std::none_of(kinds.begin(), kinds.end(), [&](std::string_view kind) {
            return mayBeOfKind(pod, kind);
          })) {
        continue;
      }
      const WorkloadName owner = workloadNameOf(pod);
      if (const auto it = wanted.find({namespace_, owner.kind, owner.name}); it != wanted.end()) {
        for (const std::size_t i : it->second) {
          names[i].push_back(pod.name);
        }
      }
    }
  }
  std::vector<std::optional<PodSelection>> out;
  for (std::size_t i = 0; i < objects.size(); ++i) {
    if (names[i].empty()) {
      out.emplace_back(std::nullopt);
      continue;
    }
    std::sort(names[i].begin(), names[i].end());
    out.push_back(PodSelection{objects[i].namespace_, {}, std::move(names[i])});
  }
  return out;
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
