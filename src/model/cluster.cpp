#include "model/cluster.h"

#include <algorithm>
#include <array>
#include <atomic>

namespace dagadvisor::model {

namespace {

bool isPlainKeyChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

bool isUpper(char c) {
  return c >= 'A' && c <= 'Z';
}

bool isLowerOrDigit(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

bool isNormalized(std::string_view key) {
  for (char c : key) {
    if (!isPlainKeyChar(c) || isUpper(c)) {
      return false;
    }
  }
  return true;
}

// kube-state-metrics' labelName(): invalid characters become '_', then camelCase is split
// (`([a-z0-9])([A-Z])` → `$1_$2`) and everything lowercased: tekton.dev/pipelineRun →
// tekton_dev_pipeline_run. `append` takes each character of the result in turn.
template <class Append>
void normalizeKeyInto(std::string_view key, Append&& append) {
  char previous = '\0';
  for (char c : key) {
    const char plain = isPlainKeyChar(c) ? c : '_';
    if (isUpper(plain) && isLowerOrDigit(previous)) {
      append('_');
    }
    append(isUpper(plain) ? static_cast<char>(plain - 'A' + 'a') : plain);
    previous = plain;
  }
}

}  // namespace

std::string LabelSet::normalizeKey(std::string_view key) {
  std::string out;
  out.reserve(key.size() + 4);
  normalizeKeyInto(key, [&](char c) { out += c; });
  return out;
}

const LabelSet::Items& LabelSet::items() const {
  static const Items kNone;
  return items_ ? *items_ : kNone;
}

void LabelSet::set(std::string_view raw_key, std::string value) {
  if (!items_) {
    items_ = std::make_shared<Items>();
  } else if (items_.use_count() > 1) {
    items_ = std::make_shared<Items>(*items_);
  }
  std::string key = normalizeKey(raw_key);
  auto it = std::lower_bound(items_->begin(), items_->end(), key,
                             [](const auto& item, const std::string& k) { return item.first < k; });
  if (it != items_->end() && it->first == key) {
    it->second = std::move(value);
  } else {
    items_->emplace(it, std::move(key), std::move(value));
  }
}

std::optional<std::string_view> LabelSet::get(std::string_view raw_key) const {
  if (isNormalized(raw_key)) {
    return find(raw_key);
  }
  // Adapters ask each pod for keys in their API spelling (workflows.argoproj.io/workflow):
  // normalised on the stack, not in a string allocated per pod and key.
  constexpr std::size_t kOnStack = 128;
  if (raw_key.size() * 2 > kOnStack) {  // camelCase at most doubles a key
    return find(normalizeKey(raw_key));
  }
  std::array<char, kOnStack> buffer;
  std::size_t size = 0;
  normalizeKeyInto(raw_key, [&](char c) { buffer[size++] = c; });
  return find(std::string_view(buffer.data(), size));
}

std::optional<std::string_view> LabelSet::find(std::string_view key) const {
  const Items& all = items();
  auto it = std::lower_bound(all.begin(), all.end(), key,
                             [](const auto& item, std::string_view k) { return item.first < k; });
  if (it != all.end() && it->first == key) {
    return std::string_view(it->second);
  }
  return std::nullopt;
}

std::string_view phaseName(PodPhase phase) {
  switch (phase) {
    case PodPhase::kPending:
      return "Pending";
    case PodPhase::kRunning:
      return "Running";
    case PodPhase::kSucceeded:
      return "Succeeded";
    case PodPhase::kFailed:
      return "Failed";
    case PodPhase::kUnknown:
      return "Unknown";
  }
  return "Unknown";
}

void Pod::forgetListedSpec() {
  required_node_affinity.reset();
  priority.reset();
  if (priority_class_listed) {
    priority_class.clear();
    priority_class_listed = false;
  }
}

ClusterSnapshot::ClusterSnapshot(const ClusterSnapshot& other)
    : at_(other.at_),
      nodes_(other.nodes_),
      pods_(std::make_shared<Pods>(other.pods())),
      node_index_(other.node_index_),
      pod_index_(other.pod_index_),
      pods_by_namespace_(other.pods_by_namespace_),
      pods_by_node_(other.pods_by_node_),
      requested_by_node_(other.requested_by_node_),
      pending_(other.pending_),
      scheduler_(other.scheduler_),
      spec_families_(other.spec_families_),
      priority_classes_(other.priority_classes_),
      pending_specs_listed_(other.pending_specs_listed_),
      network_receive_(other.network_receive_) {}

ClusterSnapshot& ClusterSnapshot::operator=(const ClusterSnapshot& other) {
  if (this != &other) {
    *this = ClusterSnapshot(other);
  }
  return *this;
}

const ClusterSnapshot::Pods& ClusterSnapshot::noPods() {
  static const Pods kNone;
  return kNone;
}

ClusterSnapshot::Pods ClusterSnapshot::takePods(std::shared_ptr<const Pods>&& shared) {
  if (!shared) {
    return {};
  }
  if (shared.use_count() == 1) {
    // The last other owner released it with a release decrement; this fence orders its reads
    // of the pods before the moves below. The vector was made mutable (pods_), so moving out
    // of it is allowed.
    std::atomic_thread_fence(std::memory_order_acquire);
    Pods pods = std::move(const_cast<Pods&>(*shared));
    shared.reset();
    return pods;
  }
  Pods pods = *shared;
  shared.reset();
  return pods;
}

ClusterSnapshot::ClusterSnapshot(UnixSeconds at, std::vector<Node> nodes, Pods pods)
    : at_(at), nodes_(std::move(nodes)), pods_(std::make_shared<Pods>(std::move(pods))) {
  node_index_.reserve(nodes_.size());
  for (NodeId id = 0; id < nodes_.size(); ++id) {
    node_index_.emplace(nodes_[id].name, id);
  }
  pods_by_node_.resize(nodes_.size());
  requested_by_node_.resize(nodes_.size());
  pod_index_.reserve(pods_->size());
  std::vector<PodId>* in_namespace = nullptr;
  for (PodId id = 0; id < pods_->size(); ++id) {
    Pod& pod = (*pods_)[id];
    pod_index_.findOrInsert(fingerprint(pod.namespace_, pod.name),
                            static_cast<RecordIndex::Record>(id));
    // A reader sorts pods by namespace: one lookup per namespace, not per pod.
    if (in_namespace == nullptr || pod.namespace_ != (*pods_)[in_namespace->back()].namespace_) {
      in_namespace = &pods_by_namespace_[pod.namespace_];
    }
    in_namespace->push_back(id);
    // A pod an incremental read kept still has the id its node had last time: most often right.
    if (!pod.node_name.empty() &&
        (pod.node >= nodes_.size() || nodes_[pod.node].name != pod.node_name)) {
      const auto it = node_index_.find(pod.node_name);
      pod.node = it != node_index_.end() ? it->second : kNoNode;
    }
    if (pod.holdsResources()) {
      pods_by_node_[pod.node].push_back(id);
      requested_by_node_[pod.node] += pod.requests;
    } else if (pod.isPendingUnscheduled()) {
      pending_.push_back(id);
    }
  }
}

const std::vector<PodId>& ClusterSnapshot::podsIn(std::string_view namespace_) const {
  static const std::vector<PodId> kNone;
  const auto it = pods_by_namespace_.find(std::string(namespace_));
  return it == pods_by_namespace_.end() ? kNone : it->second;
}

std::optional<NodeId> ClusterSnapshot::findNode(std::string_view name) const {
  if (auto it = node_index_.find(std::string(name)); it != node_index_.end()) {
    return it->second;
  }
  return std::nullopt;
}

std::optional<PodId> ClusterSnapshot::findPod(std::string_view namespace_,
                                              std::string_view name) const {
  if (const auto id = pod_index_.find(fingerprint(namespace_, name))) {
    return static_cast<PodId>(*id);
  }
  return std::nullopt;
}

const PriorityClass* ClusterSnapshot::priorityClass(std::string_view name) const {
  if (!priority_classes_) {
    return nullptr;
  }
  auto it = std::lower_bound(priority_classes_->begin(), priority_classes_->end(), name,
                             [](const PriorityClass& c, std::string_view n) { return c.name < n; });
  return it != priority_classes_->end() && it->name == name ? &*it : nullptr;
}

void ClusterSnapshot::joinSchedulingSpecs(SchedulingSpecs specs) {
  if (specs.priority_classes) {
    priority_classes_ = std::move(specs.priority_classes);
    std::sort(priority_classes_->begin(), priority_classes_->end(),
              [](const PriorityClass& a, const PriorityClass& b) { return a.name < b.name; });
  }
  if (!specs.pending_pods) {
    return;
  }
  pending_specs_listed_ = true;
  for (PendingPodSpec& spec : *specs.pending_pods) {
    if (const auto id = findPod(spec.namespace_, spec.name)) {
      Pod& pod = (*pods_)[*id];
      pod.required_node_affinity = std::move(spec.required_node_affinity);
      pod.priority = spec.priority;
      if (pod.priority_class.empty() && !spec.priority_class.empty()) {
        pod.priority_class = std::move(spec.priority_class);
        pod.priority_class_listed = true;
      }
    }
  }
}

const NetworkReceive* ClusterSnapshot::networkReceive(PodId pod) const {
  const auto it = network_receive_.find(pod);
  return it == network_receive_.end() ? nullptr : &it->second;
}

}  // namespace dagadvisor::model
