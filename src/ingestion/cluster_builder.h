#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ingestion/query_catalog.h"
#include "ingestion/usage_table.h"
#include "model/cluster.h"
#include "model/record_index.h"
#include "sources/prometheus/response_parser.h"

namespace dagadvisor::ingestion {

/// How a read tells pods apart: by uid where the pod has one (unique over the cluster's life, so
/// a query may answer a pod's facts by uid alone, PodFactKey::kUid), else by
/// namespace and name. Every index of pods in this stage uses it.
model::Fingerprint podKey(std::string_view namespace_, std::string_view name, std::string_view uid);

/// Assembles a ClusterSnapshot from the decoded samples of the catalog's queries, in any order.
/// Knows the kube-state-metrics label conventions (label_*/annotation_* prefixes, resource units);
/// nothing after this stage sees a Prometheus label.
class ClusterBuilder {
 public:
  /// The memory of a builder's pod records and their index, for the next read's builder, which
  /// empties it: ~60 MB at the reference size that an incremental reader keeps mapped across reads
  /// (built afresh, the first window read after a full read's heap trim faulted it in again:
  /// that read cost 0.67-0.69 s of CPU instead of 0.52-0.54 s, docs/performance.md).
  struct PodMemory;

  explicit ClusterBuilder(UnixSeconds at);
  ClusterBuilder(UnixSeconds at, PodMemory&& memory);

  /// Takes one sample of query `id`; samples without the labels the query must have are skipped.
  /// A pod's sample names it by namespace, pod and uid, or by uid alone (PodFactKey::kUid): those
  /// of one uid are the same pod, whichever comes first.
  void add(QueryId id, const sources::SampleView& sample);

  /// Whether a pod query keyed by uid answered a series without one: the family lacks the label
  /// (kube-state-metrics 1.x, or relabelled away), so its pods' facts were folded into
  /// one series and the read must ask again keyed by namespace and name
  /// (PodFactKey::kNamespacePodUid).
  bool answeredWithoutUid() const { return answered_without_uid_; }

  /// Adds a pod an earlier read built whole (an incremental read, incremental_state.h). When this
  /// read's answers have its info, they hold only what can change; the facts that never change
  /// after a pod appears (requests, labels, annotations, owner, tolerations, node selector) come
  /// from `kept`. Otherwise the pod is `kept` as it was, but for its usage (this read's, or
  /// keepUsage's). `key` is the pod's podKey(namespace, name, uid), for a caller
  /// that has it: each window read keeps ~100,000 pods.
  void keepPod(model::Pod&& kept);
  void keepPod(model::Pod&& kept, const model::Fingerprint& key);

  /// Room for `more` pods besides those answered so far (an incremental read's kept ones).
  void reservePods(std::size_t more) { pod_index_.reserve(pod_index_.size() + more); }

  /// Storage build() fills with the snapshot's pods (its elements are dropped): an earlier
  /// snapshot's, whose pages are already mapped (~70 MB at the reference size).
  void reuseStorage(model::ClusterSnapshot::Pods&& storage) { storage_ = std::move(storage); }

  /// The pods kube_pod_info answered for that pod_live did not: deleted, history only.
  std::vector<const model::Pod*> podsNotLive() const;
  /// The pods in the lookback that are not live or have no known phase so far.
  std::vector<const model::Pod*> podsNotLiveOrOfUnknownPhase() const;
  /// The pods whose kube_pod_info did not name a controller, nor say "<none>": only
  /// kube_pod_owner can tell their owner (an exporter without created_by_*, or relabelled).
  std::vector<const model::Pod*> podsOfUnnamedOwner() const;

  /// For a read that learns which pods are gone rather than which are live (an incremental
  /// window read): every pod known so far is live but those `gone` names by their
  /// podKey(namespace, name, uid).
  void markLiveExcept(const std::vector<model::Fingerprint>& gone);

  /// Every pod pending unbound so far (known to kube_pod_info, live, no node, phase Pending:
  /// the only ones whose tolerations and node selector build() keeps), then up to `others`
  /// other live pods, in the order first answered.
  std::vector<const model::Pod*> podsPendingUnbound(std::size_t others = 0) const;

  /// Whether kube-state-metrics exports tolerations and node selectors, as far as this read's
  /// answers tell: a family's count above zero, or any series of it.
  const model::ClusterSnapshot::SpecFamilies& specFamilies() const { return spec_families_; }

  /// Whether kube-state-metrics exports tolerations and node selectors at all, as an earlier
  /// read answered it, for a read that does not ask: added to what this read's answers tell.
  void keepSpecFamilies(model::ClusterSnapshot::SpecFamilies families) {
    spec_families_.tolerations |= families.tolerations;
    spec_families_.node_selectors |= families.node_selectors;
  }

  /// The usage this read answered, or the one keepUsage kept: what build() gives the pods.
  std::shared_ptr<const UsageTable> usage() const { return usage_; }
  /// For a read that does not read usage: an earlier read's, shared, not copied.
  void keepUsage(std::shared_ptr<const UsageTable> usage) { usage_ = std::move(usage); }

  /// The snapshot of every node with allocatable data and every pod with pod info. The pod
  /// records' memory goes to `keep` when given.
  model::ClusterSnapshot build(PodMemory* keep = nullptr) &&;

 private:
  struct PodRecord {
    model::Pod pod;
    bool has_info = false;         // only pods kube_pod_info knows are built
    bool live = false;             // still exists at the analysis time
    bool kept_whole = false;       // kept from an earlier read, nothing of it answered by this one
    bool owner_from_info = false;  // kube_pod_info named its controller (or "<none>")
    // pod_requests' largest init container per resource: the pod needs the larger of it and
    // its app containers' sum (pod.requests), settled in build().
    model::ResourceVector init_requests;
  };
  struct NodeRecord {
    model::Node node;
    bool has_allocatable = false;
  };

  NodeRecord& nodeFor(const sources::SampleView& sample);
  PodRecord& podFor(const sources::SampleView& sample);
  PodRecord& podFor(std::string_view namespace_, std::string_view name, std::string_view uid);
  PodRecord& podFor(const model::Fingerprint& key, std::string_view namespace_,
                    std::string_view name, std::string_view uid);
  void addNodeSample(QueryId id, const sources::SampleView& sample);
  static void addRequestSample(PodRecord& record, const sources::SampleView& sample);
  void addPodSample(QueryId id, const sources::SampleView& sample);

  UnixSeconds at_;
  model::RecordStore<NodeRecord> nodes_;
  model::RecordIndex node_index_;  // by name
  model::RecordStore<PodRecord> pods_;
  model::RecordIndex pod_index_;  // by podKey
  bool answered_without_uid_ = false;
  std::shared_ptr<UsageTable> answered_usage_ = std::make_shared<UsageTable>();
  std::shared_ptr<const UsageTable> usage_ = answered_usage_;
  model::SchedulerStats scheduler_;
  model::ClusterSnapshot::SpecFamilies spec_families_;
  model::ClusterSnapshot::Pods storage_;
};

struct ClusterBuilder::PodMemory {
  model::RecordStore<PodRecord> records;
  model::RecordIndex index;  // by podKey
};

}  // namespace dagadvisor::ingestion
