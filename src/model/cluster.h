#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/clock.h"
#include "model/record_index.h"
#include "model/resources.h"
#include "model/scheduler_stats.h"
#include "model/scheduling_spec.h"

namespace dagadvisor::model {

using NodeId = std::uint32_t;
using PodId = std::uint32_t;
inline constexpr NodeId kNoNode = std::numeric_limits<NodeId>::max();

/// Labels or annotations of one object, sorted by key. Keys are stored the way kube-state-metrics
/// exports them (every character outside [A-Za-z0-9_] becomes '_': "dag-id" → "dag_id"), because
/// that is all Prometheus ever shows; set() and get() take either spelling. Small, so a sorted
/// vector beats a map in both memory and lookup time. Copies share the items until one is set:
/// a pod's labels and annotations never change after it appears, and an incremental read keeps
/// every pod of the last snapshot (~110,000 at the reference size, a dozen long strings each).
class LabelSet {
 public:
  using Items = std::vector<std::pair<std::string, std::string>>;

  /// "topology.kubernetes.io/zone" → "topology_kubernetes_io_zone".
  static std::string normalizeKey(std::string_view key);

  void set(std::string_view key, std::string value);
  /// The value for `key` (either spelling), or nullopt.
  std::optional<std::string_view> get(std::string_view key) const;
  bool has(std::string_view key) const { return get(key).has_value(); }
  const Items& items() const;
  bool empty() const { return !items_ || items_->empty(); }

 private:
  std::optional<std::string_view> find(std::string_view normalized_key) const;

  // Never changed while shared: set() copies first unless this set is its only owner.
  std::shared_ptr<Items> items_;
};

struct Taint {
  std::string key;
  std::string value;
  std::string effect;  // NoSchedule, PreferNoSchedule, NoExecute
};

/// One toleration of a pod spec, as kube-state-metrics' kube_pod_tolerations labels it. The
/// matching rule (Kubernetes' ToleratesTaint) lives with the node eligibility in analysis/.
struct Toleration {
  std::string key;        // "" with Exists: tolerates every taint
  std::string operator_;  // "Exists", "Equal" ("" is Equal, the API default), or newer ones
  std::string value;
  std::string effect;                        // "" matches every effect
  std::optional<double> toleration_seconds;  // NoExecute only: how long it stays bound
};

struct Node {
  std::string name;
  ResourceVector allocatable;
  ResourceVector capacity;
  LabelSet labels;
  std::vector<Taint> taints;
  bool unschedulable = false;

  bool hasGpus() const { return allocatable.gpus > 0; }
};

/// What a pod really used over the usage window (cAdvisor, DCGM), next to what it requested.
/// `samples` counts the 5-minute CPU rates seen in the window; a pod too short-lived for one rate
/// has none, and its cpu_cores is not a measurement. Right-sizing needs many samples.
struct ObservedUsage {
  double cpu_cores = 0;     // a high percentile (config) of the 5-minute CPU rate
  double memory_bytes = 0;  // peak working set
  double samples = 0;       // CPU-rate samples (one per 5 minutes) in the window
  std::optional<double> gpu_utilization_percent;  // DCGM mean, only for pods holding GPUs
};

/// One app container of a pod, by its real name, with what it requests (kube-state-metrics'
/// container label): patches that change requests name it, since containers merge by name.
struct ContainerRequests {
  std::string name;
  ResourceVector requests;  // CPU and memory
};

/// What a finished pod received over its network interfaces while it ran (cAdvisor's pod-level
/// `container_network_receive_bytes_total`, summed over interfaces): the counter's last value,
/// and its mean over the pod's samples, which tells when the bytes arrived (a pod that fetched
/// everything at once has a mean close to the total).
struct NetworkReceive {
  double bytes = 0;
  double mean_bytes = 0;
};

enum class PodPhase { kPending, kRunning, kSucceeded, kFailed, kUnknown };

std::string_view phaseName(PodPhase phase);

struct Pod {
  std::string namespace_;
  std::string name;
  std::string uid;
  NodeId node = kNoNode;  // kNoNode while unscheduled
  std::string node_name;  // as reported, even when the node itself is not in the snapshot
  PodPhase phase = PodPhase::kUnknown;
  ResourceVector requests;  // sum over app containers; max with init containers is the source's job
  LabelSet labels;
  LabelSet annotations;
  std::string owner_kind;  // DaemonSet, ReplicaSet, Job, Workflow, … ("" when none)
  std::string owner_name;
  std::string priority_class;
  std::optional<UnixSeconds> created;
  std::optional<UnixSeconds> scheduled;
  std::optional<UnixSeconds> started;
  std::optional<UnixSeconds> finished;
  std::optional<ObservedUsage> usage;         // absent without cAdvisor data for this pod
  std::vector<ContainerRequests> containers;  // empty when the source does not name them
  /// Read only for pods pending unbound at the analysis time (what the diagnosis needs; issue
  /// #18: cost). nullopt: not known (kube-state-metrics does not export the family, or the pod
  /// is not one it was read for); an empty value: known to have none.
  std::optional<std::vector<Toleration>> tolerations;
  std::optional<LabelSet> node_selector;  // keys as kube-state-metrics exports them
  /// From the Kubernetes API's LIST of pending pods (sources.kubernetes), for those only:
  /// nullopt without it; an empty list: known to have no required node affinity.
  std::optional<std::vector<NodeSelectorTerm>> required_node_affinity;
  std::optional<std::int64_t> priority;  // spec.priority, from the same LIST
  bool priority_class_listed = false;    // priority_class came from that LIST, not from metrics

  /// Undoes what ClusterSnapshot::joinSchedulingSpecs added: the pod as its source read it.
  void forgetListedSpec();

  /// Holds node resources now: bound to a node and neither succeeded nor failed.
  bool holdsResources() const {
    return node != kNoNode && (phase == PodPhase::kRunning || phase == PodPhase::kPending);
  }
  bool isPendingUnscheduled() const { return node_name.empty() && phase == PodPhase::kPending; }
  std::string key() const { return namespace_ + "/" + name; }
};

/// An immutable picture of the cluster at one instant, indexed for the detectors: pods by node,
/// by namespace/name, and the unscheduled pending pods. Built once per cycle by ClusterBuilder.
/// Its pods can be shared with the reader that built them (sharedPods), which takes them back
/// for its next read once the snapshot is gone (takePods) instead of keeping a copy.
class ClusterSnapshot {
 public:
  using Pods = std::vector<Pod>;

  ClusterSnapshot(UnixSeconds at, std::vector<Node> nodes, Pods pods);
  ClusterSnapshot(const ClusterSnapshot& other);  // copies the pods: a copy is never shared
  ClusterSnapshot& operator=(const ClusterSnapshot& other);
  ClusterSnapshot(ClusterSnapshot&&) noexcept = default;
  ClusterSnapshot& operator=(ClusterSnapshot&&) noexcept = default;
  ~ClusterSnapshot() = default;

  UnixSeconds at() const { return at_; }
  const std::vector<Node>& nodes() const { return nodes_; }
  const Pods& pods() const { return pods_ ? *pods_ : noPods(); }
  const Node& node(NodeId id) const { return nodes_[id]; }
  const Pod& pod(PodId id) const { return (*pods_)[id]; }

  /// The pods, shared: joinSchedulingSpecs still edits the pending ones (forgetListedSpec undoes
  /// it), nothing else does.
  std::shared_ptr<const Pods> sharedPods() const { return pods_; }
  /// `shared`'s pods, moved out when nothing else holds them any more (the snapshot they came
  /// from is gone), else copied.
  static Pods takePods(std::shared_ptr<const Pods>&& shared);

  /// The pods of `namespace_`, in snapshot order (none for a namespace it does not know).
  const std::vector<PodId>& podsIn(std::string_view namespace_) const;

  std::optional<NodeId> findNode(std::string_view name) const;
  std::optional<PodId> findPod(std::string_view namespace_, std::string_view name) const;

  /// Pods bound to `node` that hold resources now (running, or bound and starting).
  const std::vector<PodId>& podsOn(NodeId node) const { return pods_by_node_[node]; }
  /// Sum of the requests of podsOn(node).
  const ResourceVector& requestedOn(NodeId node) const { return requested_by_node_[node]; }
  /// allocatable − requested, per component (can be negative on over-committed data).
  ResourceVector freeOn(NodeId node) const {
    return nodes_[node].allocatable - requested_by_node_[node];
  }
  /// Pending pods that no node has been chosen for.
  const std::vector<PodId>& pendingPods() const { return pending_; }

  const SchedulerStats& scheduler() const { return scheduler_; }
  void setScheduler(SchedulerStats stats) { scheduler_ = std::move(stats); }

  /// Which pod-spec families of kube-state-metrics answered at all: a family with no series
  /// means kube-state-metrics does not export it (kube_pod_nodeselectors is opt-in), so its
  /// constraints could not be checked.
  struct SpecFamilies {
    bool tolerations = false;     // kube_pod_tolerations (v2.6.0 and later)
    bool node_selectors = false;  // kube_pod_nodeselectors (--metric-opt-in-list)
  };
  const SpecFamilies& specFamilies() const { return spec_families_; }
  void setSpecFamilies(SpecFamilies families) { spec_families_ = families; }

  /// The PriorityClasses the Kubernetes API listed, by name; nullopt when not known (no API
  /// source, or its LIST failed).
  const std::optional<std::vector<PriorityClass>>& priorityClasses() const {
    return priority_classes_;
  }
  /// The class named `name`, or nullptr (not listed, or the classes are not known).
  const PriorityClass* priorityClass(std::string_view name) const;
  /// Whether the pending pods' specs were listed (their required node affinity is then known).
  bool pendingSpecsListed() const { return pending_specs_listed_; }
  /// Joins what the Kubernetes API listed: the classes, and each listed pending pod's spec
  /// onto the snapshot's pod of the same namespace/name (pods not in the snapshot are dropped).
  /// A family that is nullopt leaves what is known unchanged.
  void joinSchedulingSpecs(SchedulingSpecs specs);

  /// What finished pods received (read after the runs are known, for their task pods only: the
  /// source reads it by pod name); nullptr for a pod it was not read for.
  const NetworkReceive* networkReceive(PodId pod) const;
  void joinNetworkReceive(std::unordered_map<PodId, NetworkReceive> received) {
    network_receive_ = std::move(received);
  }

 private:
  static const Pods& noPods();  // a moved-from snapshot's

  UnixSeconds at_;
  std::vector<Node> nodes_;
  std::shared_ptr<Pods> pods_;
  std::unordered_map<std::string, NodeId> node_index_;
  RecordIndex pod_index_;  // by namespace and name: no string built per pod
  std::unordered_map<std::string, std::vector<PodId>> pods_by_namespace_;
  std::vector<std::vector<PodId>> pods_by_node_;
  std::vector<ResourceVector> requested_by_node_;
  std::vector<PodId> pending_;
  SchedulerStats scheduler_;
  SpecFamilies spec_families_;
  std::optional<std::vector<PriorityClass>> priority_classes_;  // sorted by name
  bool pending_specs_listed_ = false;
  std::unordered_map<PodId, NetworkReceive> network_receive_;
};

}  // namespace dagadvisor::model
