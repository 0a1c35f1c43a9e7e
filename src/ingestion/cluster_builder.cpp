#include "ingestion/cluster_builder.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace dagadvisor::ingestion {
namespace {

using sources::SampleView;

// Adds one `resource` amount, in kube-state-metrics units (cores, bytes, integer GPUs).
void addResource(model::ResourceVector& v, std::string_view resource, double amount) {
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
void copyPrefixed(const SampleView& s, std::string_view prefix, model::LabelSet& out) {
  for (std::size_t i = 0; i < s.label_count; ++i) {
    const auto& [name, value] = s.labels[i];
    if (name.size() > prefix.size() && name.substr(0, prefix.size()) == prefix) {
      out.set(name.substr(prefix.size()), std::string(value));
    }
  }
}

model::PodPhase parsePhase(std::string_view text) {
  if (text == "Pending") {
    return model::PodPhase::kPending;
  }
  if (text == "Running") {
    return model::PodPhase::kRunning;
  }
  if (text == "Succeeded") {
    return model::PodPhase::kSucceeded;
  }
  if (text == "Failed") {
    return model::PodPhase::kFailed;
  }
  return model::PodPhase::kUnknown;
}

std::optional<UnixSeconds> timeValue(double v) {
  return std::isfinite(v) && v > 0 ? std::optional<UnixSeconds>(v) : std::nullopt;
}

using PodTime = std::optional<UnixSeconds> model::Pod::*;

PodTime podTimeOf(QueryId id) {
  switch (id) {
    case QueryId::kPodCreated:
      return &model::Pod::created;
    case QueryId::kPodScheduled:
      return &model::Pod::scheduled;
    case QueryId::kPodStarted:
      return &model::Pod::started;
    default:
      return &model::Pod::finished;
  }
}

// Containers arrive as one series per resource; cAdvisor-style placeholders name no container.
void addContainerRequest(model::Pod& pod, std::string_view container, std::string_view resource,
                         double amount) {
  if (container.empty() || container == "POD") {
    return;
  }
  auto it = std::find_if(pod.containers.begin(), pod.containers.end(),
                         [&](const model::ContainerRequests& c) { return c.name == container; });
  if (it == pod.containers.end()) {
    it = pod.containers.insert(pod.containers.end(),
                               model::ContainerRequests{std::string(container), {}});
  }
  addResource(it->requests, resource, amount);
}

void addToleration(model::Pod& pod, const SampleView& s) {
  model::Toleration t{std::string(s.label("key")), std::string(s.label("operator")),
                      std::string(s.label("value")), std::string(s.label("effect")), std::nullopt};
  if (const std::string_view seconds = s.label("toleration_seconds"); !seconds.empty()) {
    t.toleration_seconds = std::strtod(std::string(seconds).c_str(), nullptr);
  }
  auto& list = pod.tolerations ? *pod.tolerations : pod.tolerations.emplace();
  const bool known = std::any_of(list.begin(), list.end(), [&](const model::Toleration& o) {
    return o.key == t.key && o.operator_ == t.operator_ && o.value == t.value &&
           o.effect == t.effect;
  });
  if (!known) {
    list.push_back(std::move(t));
  }
}

// One series of the pod_spec query, told apart by its `spec` tag. A pod's series also tells
// that its family is exported, which a read by uid otherwise asks a count of the family for.
void addSpecSample(model::Pod& pod, const SampleView& s,
                   model::ClusterSnapshot::SpecFamilies& families) {
  const std::string_view spec = s.label("spec");
  if (spec == "toleration") {
    addToleration(pod, s);
    families.tolerations = true;
  } else if (spec == "node_selector") {
    copyPrefixed(s, "nodeselector_",
                 pod.node_selector ? *pod.node_selector : pod.node_selector.emplace());
    families.node_selectors = true;
  }
}

bool isNodeQuery(QueryId id) {
  return id == QueryId::kNodeAllocatable || id == QueryId::kNodeLabels ||
         id == QueryId::kNodeTaints;
}

std::optional<double> finite(double v) {
  return std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
}

model::ProfileLatency& profileFor(model::SchedulerStats& stats, std::string_view profile) {
  auto it = std::lower_bound(
      stats.latency.begin(), stats.latency.end(), profile,
      [](const model::ProfileLatency& p, std::string_view name) { return p.profile < name; });
  if (it == stats.latency.end() || it->profile != profile) {
    it = stats.latency.insert(it, model::ProfileLatency{std::string(profile), {}, {}, {}, 0});
  }
  return *it;
}

void addLatencySample(model::SchedulerStats& stats, const SampleView& sample) {
  const std::string_view stat = sample.label("stat");
  model::ProfileLatency& profile = profileFor(stats, sample.label("profile"));
  if (stat == "p50") {
    profile.p50 = finite(sample.value);
  } else if (stat == "p95") {
    profile.p95 = finite(sample.value);
  } else if (stat == "p99") {
    profile.p99 = finite(sample.value);
  } else if (stat == "rate") {
    profile.pods_per_second = finite(sample.value).value_or(0);
  }
  stats.latency_metric = sample.label("metric");
  stats.present = true;
}

void addSignalSample(model::SchedulerStats& stats, const SampleView& sample) {
  const std::string_view signal = sample.label("signal");
  const double value = sample.value;
  if (!std::isfinite(value)) {
    return;
  }
  if (signal == "pending") {
    stats.pending_by_queue[std::string(sample.label("queue"))] = value;
  } else if (signal == "unschedulable") {
    stats.unschedulable_by_plugin[std::string(sample.label("plugin"))] = value;
  } else if (signal == "attempts") {
    stats.attempts_per_second[std::string(sample.label("result"))] = value;
  } else if (signal == "preemption") {
    stats.preemption_attempts_per_second = value;
  } else if (signal == "extension_p99") {
    stats.extension_point_p99[std::string(sample.label("extension_point"))] = value;
  } else {
    return;
  }
  stats.present = true;
}

void addUsageSample(QueryId id, model::ObservedUsage& usage, double value) {
  if (!std::isfinite(value)) {
    return;
  }
  switch (id) {
    case QueryId::kPodUsageCpu:
      usage.cpu_cores = value;
      break;
    case QueryId::kPodUsageMemory:
      usage.memory_bytes = value;
      break;
    case QueryId::kPodUsageSamples:
      usage.samples = value;
      break;
    default:
      usage.gpu_utilization_percent = value;
  }
}

// A series of a pod that has not changed is re-written only every few minutes (and those of a
// deleted pod end at different times): what the window did not answer, the last read did, and
// it is the newest value the lookback holds.
void keepUnanswered(model::Pod& pod, model::Pod&& kept) {
  // A pod has one info series before binding and one after; the bound one wins.
  if (pod.node_name.empty()) {
    pod.node_name = std::move(kept.node_name);
  }
  if (pod.phase == model::PodPhase::kUnknown) {
    pod.phase = kept.phase;
  }
  for (auto time : {&model::Pod::created, &model::Pod::scheduled, &model::Pod::started,
                    &model::Pod::finished}) {
    if (!(pod.*time)) {
      pod.*time = kept.*time;
    }
  }
  if (pod.containers.empty()) {
    pod.containers = std::move(kept.containers);
  }
  if (!pod.tolerations) {
    pod.tolerations = std::move(kept.tolerations);
  }
  if (!pod.node_selector) {
    pod.node_selector = std::move(kept.node_selector);
  }
}

// A pod first answered by uid alone gets its namespace and name from the first sample (or kept
// pod) that names it.
void completeName(model::Pod& pod, std::string_view namespace_, std::string_view name) {
  if (pod.name.empty() && !name.empty()) {
    pod.namespace_ = namespace_;
    pod.name = name;
  }
}

bool podOrder(const model::Pod* a, const model::Pod* b) {
  return std::tie(a->namespace_, a->name, a->uid) < std::tie(b->namespace_, b->name, b->uid);
}

// Sorts pointers (moving each pod once afterwards spares moving ~500-byte pods around). An
// incremental read keeps the last snapshot's pods, in their order, after the few its queries
// answered: the longest ascending run stays in place, only the rest is sorted, and the two are
// merged, about 2n comparisons of strings instead of n log n (at the reference size sorting
// 111,000 pods was a tenth of a window read). Any order still ends sorted, only slower.
void sortMostlySorted(std::vector<model::Pod*>& pods) {
  std::size_t best_begin = 0;
  std::size_t best_end = 0;
  for (std::size_t begin = 0; begin < pods.size();) {
    std::size_t end = begin + 1;
    while (end < pods.size() && !podOrder(pods[end], pods[end - 1])) {
      ++end;
    }
    if (end - begin > best_end - best_begin) {
      best_begin = begin;
      best_end = end;
    }
    begin = end;
  }
  const auto run_begin = pods.begin() + static_cast<std::ptrdiff_t>(best_begin);
  const auto run_end = pods.begin() + static_cast<std::ptrdiff_t>(best_end);
  std::vector<model::Pod*> ascending(run_begin, run_end);
  std::vector<model::Pod*> others(pods.begin(), run_begin);
  others.insert(others.end(), run_end, pods.end());
  std::sort(others.begin(), others.end(), podOrder);
  std::merge(ascending.begin(), ascending.end(), others.begin(), others.end(), pods.begin(),
             podOrder);
}

// The pod queries whose every series names a pod: not usage (by namespace and pod), nor pod_spec
// (whose family counts name none).
bool isPodFactQuery(QueryId id) {
  return !isNodeQuery(id) && id != QueryId::kSchedulingLatency &&
         id != QueryId::kSchedulerSignals && !isPodUsage(id) && id != QueryId::kPodSpec;
}

}  // namespace

model::Fingerprint podKey(std::string_view namespace_, std::string_view name,
                          std::string_view uid) {
  return uid.empty() ? model::fingerprint(namespace_, name, uid) : model::fingerprint(uid);
}

void ClusterBuilder::add(QueryId id, const SampleView& sample) {
  if (isNodeQuery(id)) {
    if (!sample.label("node").empty()) {
      addNodeSample(id, sample);
    }
  } else if (id == QueryId::kSchedulingLatency) {
    addLatencySample(scheduler_, sample);
  } else if (id == QueryId::kSchedulerSignals) {
    addSignalSample(scheduler_, sample);
  } else if (isPodUsage(id)) {
    if (!sample.label("pod").empty()) {
      addUsageSample(id, answered_usage_->add(sample.label("namespace"), sample.label("pod")),
                     sample.value);
    }
  } else if (!sample.label("pod").empty() || !sample.label("uid").empty()) {
    addPodSample(id, sample);
  } else if (id == QueryId::kPodSpec) {
    // A family's count: it answered, so a pending pod without its series has none.
    const std::string_view spec = sample.label("spec");
    spec_families_.tolerations |= spec == "tolerations_exported" && sample.value > 0;
    spec_families_.node_selectors |= spec == "node_selectors_exported" && sample.value > 0;
  } else if (isPodFactQuery(id)) {
    answered_without_uid_ = true;
  }
}

ClusterBuilder::NodeRecord& ClusterBuilder::nodeFor(const SampleView& sample) {
  const std::string_view name = sample.label("node");
  const auto [index, fresh] = node_index_.findOrInsert(
      model::fingerprint(name), static_cast<model::RecordIndex::Record>(nodes_.size()));
  if (fresh) {
    nodes_.emplaceBack().node.name = name;
  }
  return nodes_[index];
}

ClusterBuilder::PodRecord& ClusterBuilder::podFor(const SampleView& sample) {
  return podFor(sample.label("namespace"), sample.label("pod"), sample.label("uid"));
}

ClusterBuilder::PodRecord& ClusterBuilder::podFor(std::string_view namespace_,
                                                  std::string_view name, std::string_view uid) {
  return podFor(podKey(namespace_, name, uid), namespace_, name, uid);
}

ClusterBuilder::PodRecord& ClusterBuilder::podFor(const model::Fingerprint& key,
                                                  std::string_view namespace_,
                                                  std::string_view name, std::string_view uid) {
  const auto [index, fresh] =
      pod_index_.findOrInsert(key, static_cast<model::RecordIndex::Record>(pods_.size()));
  if (fresh) {
    model::Pod& pod = pods_.emplaceBack().pod;
    pod.namespace_ = namespace_;
    pod.name = name;
    pod.uid = uid;
  } else {
    completeName(pods_[index].pod, namespace_, name);
  }
  return pods_[index];
}

std::vector<const model::Pod*> ClusterBuilder::podsNotLive() const {
  std::vector<const model::Pod*> out;
  for (std::size_t i = 0; i < pods_.size(); ++i) {
    if (pods_[i].has_info && !pods_[i].live) {
      out.push_back(&pods_[i].pod);
    }
  }
  return out;
}

std::vector<const model::Pod*> ClusterBuilder::podsNotLiveOrOfUnknownPhase() const {
  std::vector<const model::Pod*> out;
  for (std::size_t i = 0; i < pods_.size(); ++i) {
    const PodRecord& record = pods_[i];
    if (record.has_info && (!record.live || record.pod.phase == model::PodPhase::kUnknown)) {
      out.push_back(&record.pod);
    }
  }
  return out;
}

std::vector<const model::Pod*> ClusterBuilder::podsOfUnnamedOwner() const {
  std::vector<const model::Pod*> out;
  for (std::size_t i = 0; i < pods_.size(); ++i) {
    if (pods_[i].has_info && !pods_[i].owner_from_info && !pods_[i].kept_whole) {
      out.push_back(&pods_[i].pod);
    }
  }
  return out;
}

std::vector<const model::Pod*> ClusterBuilder::podsPendingUnbound(std::size_t others) const {
  std::vector<const model::Pod*> pending;
  std::vector<const model::Pod*> other;
  for (std::size_t i = 0; i < pods_.size(); ++i) {
    if (!pods_[i].has_info || !pods_[i].live) {
      continue;
    }
    if (pods_[i].pod.isPendingUnscheduled()) {
      pending.push_back(&pods_[i].pod);
    } else if (other.size() < others) {
      other.push_back(&pods_[i].pod);
    }
  }
  pending.insert(pending.end(), other.begin(), other.end());
  return pending;
}

void ClusterBuilder::markLiveExcept(const std::vector<model::Fingerprint>& gone) {
  for (std::size_t i = 0; i < pods_.size(); ++i) {
    pods_[i].live = true;
  }
  for (const model::Fingerprint& key : gone) {
    if (const auto index = pod_index_.find(key)) {
      pods_[*index].live = false;
    }
  }
}

ClusterBuilder::ClusterBuilder(UnixSeconds at) : at_(at) {}

ClusterBuilder::ClusterBuilder(UnixSeconds at, PodMemory&& memory)
    : at_(at), pods_(std::move(memory.records)), pod_index_(std::move(memory.index)) {
  pods_.clear();
  pod_index_.clear();
}

void ClusterBuilder::keepPod(model::Pod&& kept) {
  const model::Fingerprint key = podKey(kept.namespace_, kept.name, kept.uid);
  keepPod(std::move(kept), key);
}

void ClusterBuilder::keepPod(model::Pod&& kept, const model::Fingerprint& key) {
  const auto [index, fresh] =
      pod_index_.findOrInsert(key, static_cast<model::RecordIndex::Record>(pods_.size()));
  // Most kept pods are not answered by a window read: their record is made here, and takes the
  // pod whole rather than copies of its three names first (keepPod's share of a window cycle's
  // profile went from 15.5 % to 5.1 %).
  PodRecord& record = fresh ? pods_.emplaceBack() : pods_[index];
  model::Pod& pod = record.pod;
  if (record.has_info) {
    completeName(pod, kept.namespace_, kept.name);
    pod.requests = std::move(kept.requests);
    pod.labels = std::move(kept.labels);
    pod.annotations = std::move(kept.annotations);
    pod.owner_kind = std::move(kept.owner_kind);
    pod.owner_name = std::move(kept.owner_name);
    keepUnanswered(pod, std::move(kept));
    return;
  }
  // Its node id and usage stay: the snapshot checks the id against the node's name, and build()
  // looks usage up again only when this read answered it.
  pod = std::move(kept);
  record.has_info = true;
  record.kept_whole = true;
}

void ClusterBuilder::addNodeSample(QueryId id, const SampleView& sample) {
  NodeRecord& record = nodeFor(sample);
  model::Node& node = record.node;
  switch (id) {
    case QueryId::kNodeAllocatable:
      addResource(node.allocatable, sample.label("resource"), sample.value);
      record.has_allocatable = true;
      break;
    case QueryId::kNodeLabels:
      copyPrefixed(sample, "label_", node.labels);
      break;
    case QueryId::kNodeTaints: {
      model::Taint taint{std::string(sample.label("key")), std::string(sample.label("value")),
                         std::string(sample.label("effect"))};
      const bool known = std::any_of(
          node.taints.begin(), node.taints.end(),
          [&](const model::Taint& t) { return t.key == taint.key && t.effect == taint.effect; });
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
  PodRecord& record = podFor(sample);
  model::Pod& pod = record.pod;
  switch (id) {
    case QueryId::kPodInfo:
      record.has_info = true;
      // A pod has one info series before binding (node="") and one after; the bound one wins.
      if (pod.node_name.empty()) {
        pod.node_name = sample.label("node");
      }
      if (const std::string_view kind = sample.label("created_by_kind"); !kind.empty()) {
        pod.owner_kind = kind;
        pod.owner_name = sample.label("created_by_name");
        record.owner_from_info = true;
      }
      pod.priority_class = sample.label("priority_class");
      break;
    case QueryId::kPodLive:
      record.live = true;
      break;
    case QueryId::kPodPhase:
      pod.phase = parsePhase(sample.label("phase"));
      break;
    case QueryId::kPodRequests:
      addRequestSample(record, sample);
      break;
    case QueryId::kPodLabels:
      copyPrefixed(sample, "label_", pod.labels);
      break;
    case QueryId::kPodAnnotations:
      copyPrefixed(sample, "annotation_", pod.annotations);
      break;
    case QueryId::kPodOwner:
      // Both families come from the pod's ownerReferences: created_by_* is the controller's (the
      // object whose template the pod is made from, the one a patch changes), kube_pod_owner
      // lists every owner, so it only stands in where kube_pod_info did not say.
      if (!record.owner_from_info) {
        pod.owner_kind = sample.label("owner_kind");
        pod.owner_name = sample.label("owner_name");
      }
      break;
    case QueryId::kPodSpec:
      addSpecSample(pod, sample, spec_families_);
      break;
    default:
      if (isPodTime(id)) {
        pod.*podTimeOf(id) = timeValue(sample.value);
      }
  }
}

// An app container's series (summed into the pod's requests, and kept by name for CPU and
// memory, which patches change) or, without a container label, the pod's largest init
// container's.
void ClusterBuilder::addRequestSample(PodRecord& record, const SampleView& sample) {
  const std::string_view container = sample.label("container");
  const std::string_view resource = sample.label("resource");
  if (container.empty()) {
    addResource(record.init_requests, resource, sample.value);
    return;
  }
  addResource(record.pod.requests, resource, sample.value);
  if (resource == "cpu" || resource == "memory") {
    addContainerRequest(record.pod, container, resource, sample.value);
  }
}

model::ClusterSnapshot ClusterBuilder::build(PodMemory* keep) && {
  std::vector<model::Node> nodes;
  nodes.reserve(nodes_.size());
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    if (NodeRecord& record = nodes_[i]; record.has_allocatable) {
      nodes.push_back(std::move(record.node));
    }
  }
  // Deterministic order, so reports and ids do not depend on the order of the responses.
  std::sort(nodes.begin(), nodes.end(),
            [](const model::Node& a, const model::Node& b) { return a.name < b.name; });

  const bool usage_kept = usage_ != answered_usage_;
  std::vector<model::Pod*> kept;
  kept.reserve(pods_.size());
  for (std::size_t i = 0; i < pods_.size(); ++i) {
    PodRecord& record = pods_[i];
    if (!record.has_info) {
      continue;
    }
    model::Pod& pod = record.pod;
    // What the scheduler reserves: per resource, the larger of the app containers' sum and the
    // largest init container.
    pod.requests = model::componentMax(pod.requests, record.init_requests);
    // A pod deleted before the analysis time no longer holds or waits for anything; only its
    // history (timestamps, placement) still counts.
    if (!record.live &&
        (pod.phase == model::PodPhase::kPending || pod.phase == model::PodPhase::kRunning)) {
      pod.phase = pod.finished ? model::PodPhase::kSucceeded : model::PodPhase::kUnknown;
    }
    // A pod kept whole carries the usage of the table kept with it (a hash lookup per pod less,
    // ~4 % of a window cycle at the reference size).
    if (!record.kept_whole || !usage_kept) {
      const model::ObservedUsage* usage = usage_->find(pod.namespace_, pod.name);
      pod.usage = usage ? std::optional(*usage) : std::nullopt;
    }
    // Only the pods pending unbound need them (what could place them), and a read of new pods
    // by uid answers them for every pod it names.
    if (!pod.isPendingUnscheduled()) {
      pod.tolerations.reset();
      pod.node_selector.reset();
    } else if (spec_families_.tolerations && !pod.tolerations) {
      pod.tolerations.emplace();  // kube-state-metrics exports no series for a pod without any
    }
    kept.push_back(&pod);
  }
  sortMostlySorted(kept);
  model::ClusterSnapshot::Pods pods = std::move(storage_);
  pods.clear();
  if (pods.capacity() < kept.size()) {
    // Room for the pods a few more reads add, so that reused storage is not reallocated (and
    // its fresh pages faulted in) every read of a growing cluster.
    pods.reserve(kept.size() + kept.size() / 16);
  }
  for (model::Pod* pod : kept) {
    pods.push_back(std::move(*pod));
  }
  if (keep != nullptr) {
    *keep = PodMemory{std::move(pods_), std::move(pod_index_)};
  }
  model::ClusterSnapshot snapshot(at_, std::move(nodes), std::move(pods));
  snapshot.setScheduler(std::move(scheduler_));
  snapshot.setSpecFamilies(spec_families_);
  return snapshot;
}

}  // namespace dagadvisor::ingestion
