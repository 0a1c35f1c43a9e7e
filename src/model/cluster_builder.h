#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "model/cluster.h"
#include "model/query_catalog.h"
#include "sources/prometheus/response_parser.h"

namespace dagadvisor::model {

/// Assembles a ClusterSnapshot from the decoded samples of the catalog's queries, in any order.
/// Knows the kube-state-metrics label conventions (label_*/annotation_* prefixes, resource units);
/// nothing after this stage sees a Prometheus label.
class ClusterBuilder {
 public:
  explicit ClusterBuilder(UnixSeconds at) : at_(at) {}

  /// Takes one sample of query `id`; samples without the labels the query must have are skipped.
  void add(QueryId id, const sources::SampleView& sample);

  /// The snapshot of every node with allocatable data and every pod with pod info.
  ClusterSnapshot build() &&;

 private:
  Node& nodeFor(const sources::SampleView& sample);
  Pod* podFor(const sources::SampleView& sample);  // nullptr when the sample names no pod
  void addNodeSample(QueryId id, const sources::SampleView& sample);
  void addPodSample(QueryId id, const sources::SampleView& sample);

  UnixSeconds at_;
  std::unordered_map<std::string, Node> nodes_;
  std::unordered_map<std::string, Pod> pods_;  // key: namespace/pod/uid
  std::unordered_set<std::string> live_pods_;
  std::unordered_set<std::string> pods_with_info_;
  std::unordered_set<std::string> nodes_with_allocatable_;
};

}  // namespace dagadvisor::model
