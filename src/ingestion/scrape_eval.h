#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/clock.h"
#include "common/result.h"
#include "config/config.h"
#include "ingestion/query_catalog.h"
#include "ingestion/scrape_facts.h"
#include "model/cluster.h"
#include "sources/prometheus/response_parser.h"
#include "sources/scrape/scraper.h"

namespace dagadvisor::ingestion {

/// The local evaluation of a direct scrape: raw kube-state-metrics, kube-scheduler, cAdvisor and
/// dcgm-exporter samples in, the samples each catalog query (QueryId) would have returned out,
/// with the same labels and the same aggregation as the PromQL of query_catalog.cpp:
///   * container requests summed per pod and resource, against the largest init container;
///   * each pod timestamp (created, scheduled, started, finished) in an answer of its own;
///   * pod spec facts tagged spec=…: containers of every pod, tolerations and node selectors of
///     the pods listed unbound by this scrape, and a count per family that answered;
///   * histogram quantiles (Prometheus' histogram_quantile) and rates from the cumulative
///     `_bucket`/`_count`/`_total` series: over the interval since the previous scrape of the
///     same series when there is one (as rate() would), else since the target's
///     process_start_time_seconds (quantiles need no interval: since the counters began);
///   * series repeated by several targets (HA replicas, KSM shards) are merged, never summed.
/// With no Prometheus there is no history, so pods seen by earlier scrapes of this evaluator stay
/// for `lookback` after they were last seen (memory bounded by that window), marked not live.
/// Usage figures are of this scrape only (CPU needs two scrapes); right-sizing over days needs
/// Prometheus. Not thread-safe.
class ScrapeEvaluator {
 public:
  ScrapeEvaluator(const config::MetricNames& metrics, config::Seconds lookback);

  /// Starts a cycle at `now`: nodes, scheduler and usage figures start empty, pods are kept.
  void beginCycle(UnixSeconds now);
  /// Parses one target's body into the cycle; a syntax error names the target and the line.
  Result<void> addBody(const sources::scrape::ScrapedBody& body);
  /// Ends the cycle: drops pods not seen for `lookback`, keeps counters for the next rates.
  void endCycle();

  /// Calls `visit` once per sample query `id` would return for the last cycle.
  void emit(QueryId id, const sources::SampleVisitor& visit) const;

  std::size_t podCount() const { return pods_.size(); }

  using Histogram = std::map<double, double>;  // upper bound `le` → cumulative count

 private:
  using Family = scrape::Family;
  using PodFacts = scrape::PodFacts;
  using NodeFacts = scrape::NodeFacts;
  using Pending = scrape::Pending;
  // The per-body bookkeeping: counters wait for the body's end, where process_start_time_seconds
  // (anywhere in the body) tells the interval of counters seen for the first time.
  struct BodyState {
    std::string_view target;
    double process_start = std::numeric_limits<double>::quiet_NaN();
    std::vector<Pending> pending;
  };
  struct Latency {
    Histogram buckets;
    double rate = 0;
    bool has_rate = false;
  };

  void addSample(BodyState& state, const sources::SampleView& sample);
  void addPodSample(Family family, const sources::SampleView& sample);
  void addNodeSample(Family family, const sources::SampleView& sample);
  void addGaugeSample(Family family, const sources::SampleView& sample);
  void addCounterSample(BodyState& state, Family family, std::size_t metric,
                        const sources::SampleView& sample);
  void settle(const BodyState& state);
  PodFacts& podFor(const sources::SampleView& sample);
  void emitPods(QueryId id, const sources::SampleVisitor& visit) const;
  void emitNodes(QueryId id, const sources::SampleVisitor& visit) const;
  void emitScheduler(QueryId id, const sources::SampleVisitor& visit) const;
  void emitUsage(QueryId id, const sources::SampleVisitor& visit) const;
  void emitSpecFamilies(const sources::SampleVisitor& visit) const;

  std::vector<std::string> metric_names_;  // latency histogram names, in preference order
  std::unordered_map<std::string, std::pair<Family, std::size_t>> families_;
  double lookback_;
  UnixSeconds now_ = 0;
  std::uint64_t cycle_ = 0;
  std::string key_;  // reused buffer: one string per sample would dominate the cost

  std::unordered_map<std::string, PodFacts> pods_;  // key: namespace/pod/uid
  std::unordered_map<std::string, NodeFacts> nodes_;
  // Counters of the previous cycle and of this one, by target and series: value, time.
  std::unordered_map<std::string, std::pair<double, double>> counters_;
  std::unordered_map<std::string, std::pair<double, double>> next_counters_;

  std::vector<std::map<std::string, Latency>> latency_;  // per metric name, per profile
  std::map<std::string, Histogram> extension_;           // per extension point
  std::map<std::string, double> pending_;                // per queue
  std::map<std::string, double> unschedulable_;          // per plugin
  std::map<std::string, double> attempts_;               // per result, per second
  double preemption_ = 0;
  bool has_preemption_ = false;
  struct Usage {
    double cpu = 0;
    bool has_cpu = false;
    double memory = 0;
    double gpu_sum = 0;
    int gpu_count = 0;
  };
  std::unordered_map<std::string, Usage> usage_;  // key: namespace/pod
  // Series of the pod-spec families this cycle: the pod_spec query's `count`s.
  std::size_t toleration_series_ = 0;
  std::size_t node_selector_series_ = 0;
};

/// Prometheus' histogram_quantile over cumulative `buckets` (le → count): NaN without a +Inf
/// bucket, with fewer than two buckets or no observations; linear interpolation inside the
/// bucket, the lowest bucket starting at 0, and the +Inf bucket answered by the highest finite
/// bound.
double histogramQuantile(double q, const ScrapeEvaluator::Histogram& buckets);

/// Every query's samples of the evaluator's last cycle through a ClusterBuilder: the snapshot a
/// Prometheus would have given for the same data.
model::ClusterSnapshot buildScrapedSnapshot(const ScrapeEvaluator& evaluator, UnixSeconds at);

}  // namespace dagadvisor::ingestion
