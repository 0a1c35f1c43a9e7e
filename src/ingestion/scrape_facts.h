#pragma once

// The records a direct scrape keeps between samples (and, for pods, between cycles); used by
// ScrapeEvaluator only.

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/clock.h"
#include "sources/prometheus/response_parser.h"

namespace dagadvisor::ingestion::scrape {

using LabelPairs = std::vector<std::pair<std::string, std::string>>;

/// What one raw metric feeds. The four pod timestamps are consecutive, in the order of
/// PodFacts::times.
enum class Family : std::uint8_t {
  kNodeAllocatable,
  kNodeLabels,
  kNodeTaint,
  kPodInfo,
  kPodLabels,
  kPodAnnotations,
  kPodOwner,
  kPodRequests,
  kPodInitRequests,
  kPodPhase,
  kPodToleration,
  kPodNodeSelector,
  kPodCreated,
  kPodScheduled,
  kPodStarted,
  kPodFinished,
  kLatencyBucket,
  kLatencyCount,
  kPending,
  kUnschedulable,
  kAttempts,
  kPreemption,
  kExtensionBucket,
  kCpu,
  kMemory,
  kGpu,
  kProcessStart,
};

/// Adds every `<prefix>…` label of `s` not yet in `out` (replicas repeat the same labels).
void copyPrefixed(const sources::SampleView& s, std::string_view prefix, LabelPairs& out);

/// False for what cAdvisor reports besides containers: the pod's cgroup (container="") and the
/// pause container ("POD"), which would count the same use twice.
bool realContainer(std::string_view container);

/// `target` and every label of `s` in one key: a counter's identity across scrapes.
void seriesKey(std::string_view target, const sources::SampleView& s, std::string& key);

/// One pod as kube-state-metrics described it in its latest scrape.
struct PodFacts {
  struct Request {
    std::string container;
    std::string resource;
    double value = 0;
    bool init = false;
  };

  std::string namespace_, name, uid;
  std::string node, created_by_kind, created_by_name, priority_class;
  std::string phase;
  LabelPairs owners;  // owner_kind, owner_name (a pod may have several)
  LabelPairs labels, annotations;
  std::vector<Request> requests;
  std::vector<std::array<std::string, 5>> tolerations;  // key, operator, value, effect, seconds
  LabelPairs node_selector;                             // nodeselector_* labels
  bool has_node_selector = false;  // a kube_pod_nodeselectors series was seen, even empty
  std::array<double, 4>
      times{};  // created, scheduled, started, finished (as the QueryIds); NaN: none
  bool has_info = false;
  bool has_labels = false;  // a kube_pod_labels series was seen, even without label_* labels
  bool has_annotations = false;
  std::uint64_t cycle = 0;       // the last cycle that saw any of its series
  std::uint64_t live_cycle = 0;  // the last cycle whose pod info listed it
  UnixSeconds last_seen = 0;

  /// Forgets what an earlier scrape said (the key stays).
  void resetFacts();
  void addOwner(std::string_view kind, std::string_view name);
  /// One container's request; a series repeated by replicas counts once.
  void addRequest(std::string_view container, std::string_view resource, double value, bool init);
  void addTime(std::size_t event, double value);
  /// One kube_pod_tolerations series; replicas and KSM's duplicates count once.
  void addToleration(const sources::SampleView& s);
};

struct NodeFacts {
  std::vector<std::pair<std::string, double>> allocatable;  // resource → amount
  LabelPairs labels;
  bool has_labels = false;
  std::vector<std::array<std::string, 3>> taints;  // key, value, effect

  void addAllocatable(std::string_view resource, double value);
  void addTaint(std::string_view key, std::string_view value, std::string_view effect);
};

/// A counter sample waiting for its body's end (and its process start time).
struct Pending {
  Family family;
  std::size_t metric = 0;  // index of the latency histogram name
  std::string group;       // profile, result, extension point, or namespace/pod
  double le = std::numeric_limits<double>::quiet_NaN();
  double delta = 0;
  double prev_time = std::numeric_limits<double>::quiet_NaN();  // NaN: first seen
  double time = 0;
};

}  // namespace dagadvisor::ingestion::scrape
