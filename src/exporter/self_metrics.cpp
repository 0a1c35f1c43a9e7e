#include "exporter/self_metrics.h"

#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <algorithm>

#include "exporter/metric_catalog.h"

namespace dagadvisor::exporter {
namespace {

using prometheus::Counter;
using prometheus::Family;
using prometheus::Gauge;
using prometheus::Histogram;

// Cycles take from tens of milliseconds (small clusters, snapshots) to about a minute.
const Histogram::BucketBoundaries kCycleBuckets = {0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60};

template <typename Builder>
auto& build(Builder builder, prometheus::Registry& registry, MetricId id) {
  const MetricSpec& spec = metricSpec(id);
  return builder.Name(std::string(spec.name)).Help(std::string(spec.help)).Register(registry);
}

std::map<std::string, std::string> labels(MetricId id,
                                          std::initializer_list<std::string_view> values) {
  const auto pairs = labelPairs(metricSpec(id), values);
  return {pairs.begin(), pairs.end()};
}

}  // namespace

SelfMetrics::SelfMetrics(std::shared_ptr<prometheus::Registry> registry, std::string cluster,
                         std::string_view version)
    : registry_(std::move(registry)),
      cluster_(std::move(cluster)),
      build_info_(build(prometheus::BuildGauge(), *registry_, MetricId::kBuildInfo)),
      cycle_duration_(build(prometheus::BuildHistogram(), *registry_, MetricId::kCycleDuration)),
      cycles_(build(prometheus::BuildCounter(), *registry_, MetricId::kCyclesTotal)),
      last_success_(build(prometheus::BuildGauge(), *registry_, MetricId::kLastSuccessfulCycle)),
      stale_(build(prometheus::BuildGauge(), *registry_, MetricId::kAnalysisStale)),
      data_age_(build(prometheus::BuildGauge(), *registry_, MetricId::kDataAge)),
      source_up_(build(prometheus::BuildGauge(), *registry_, MetricId::kSourceUp)),
      source_queries_(build(prometheus::BuildCounter(), *registry_, MetricId::kSourceQueries)),
      source_bytes_(build(prometheus::BuildCounter(), *registry_, MetricId::kSourceResponseBytes)),
      query_bytes_(
          build(prometheus::BuildGauge(), *registry_, MetricId::kSourceQueryResponseBytes)),
      query_series_(build(prometheus::BuildGauge(), *registry_, MetricId::kSourceQuerySeries)),
      query_eval_(build(prometheus::BuildGauge(), *registry_, MetricId::kSourceQueryEvalSeconds)),
      query_exec_(build(prometheus::BuildGauge(), *registry_, MetricId::kSourceQueryExecSeconds)),
      query_samples_(build(prometheus::BuildGauge(), *registry_, MetricId::kSourceQuerySamples)),
      detector_duration_(build(prometheus::BuildGauge(), *registry_, MetricId::kDetectorDuration)),
      detector_success_(build(prometheus::BuildGauge(), *registry_, MetricId::kDetectorSuccess)),
      reload_ok_(
          build(prometheus::BuildGauge(), *registry_, MetricId::kConfigLastReloadSuccessful)) {
  build_info_.Add(labels(MetricId::kBuildInfo, {cluster_, version})).Set(1);
  cycle_duration_.Add(labels(MetricId::kCycleDuration, {cluster_}), kCycleBuckets);
  // Both results exist from the start so that rate() and alerts see a 0, not an absent series.
  cycles_.Add(labels(MetricId::kCyclesTotal, {cluster_, "success"}));
  cycles_.Add(labels(MetricId::kCyclesTotal, {cluster_, "failure"}));
  last_success_.Add(labels(MetricId::kLastSuccessfulCycle, {cluster_}));
  stale_.Add(labels(MetricId::kAnalysisStale, {cluster_})).Set(1);  // no analysis yet
  data_age_.Add(labels(MetricId::kDataAge, {cluster_}));
  reload_ok_.Add(labels(MetricId::kConfigLastReloadSuccessful, {cluster_})).Set(1);
}

void SelfMetrics::recordCycle(const report::AnalysisReport& report) {
  cycles_.Add(labels(MetricId::kCyclesTotal, {cluster_, "success"})).Increment();
  cycle_duration_.Add(labels(MetricId::kCycleDuration, {cluster_}), kCycleBuckets)
      .Observe(report.analysis_seconds);
  last_success_.Add(labels(MetricId::kLastSuccessfulCycle, {cluster_})).Set(report.generated_at);
  source_up_.Add(labels(MetricId::kSourceUp, {cluster_, report.source})).Set(1);
  source_queries_.Add(labels(MetricId::kSourceQueries, {cluster_, report.source}))
      .Increment(static_cast<double>(report.queries));
  source_bytes_.Add(labels(MetricId::kSourceResponseBytes, {cluster_, report.source}))
      .Increment(static_cast<double>(report.bytes_received));
  recordQueryCosts(report.query_costs);
  for (const auto& detector : report.detectors) {
    detector_duration_.Add(labels(MetricId::kDetectorDuration, {cluster_, detector.name}))
        .Set(detector.seconds);
    detector_success_.Add(labels(MetricId::kDetectorSuccess, {cluster_, detector.name}))
        .Set(detector.ok ? 1 : 0);
  }
}

void SelfMetrics::recordQueryCosts(const std::vector<report::QueryCostRow>& costs) {
  if (costs.empty()) {
    return;  // a direct scrape asks no query
  }
  const std::string& read = costs.front().read;
  std::vector<QueryGauges> kept;
  for (QueryGauges& previous : query_gauges_) {
    const bool asked_again =
        std::any_of(costs.begin(), costs.end(),
                    [&](const report::QueryCostRow& c) { return c.query == previous.query; });
    if (previous.read != read || asked_again) {
      kept.push_back(std::move(previous));
      continue;
    }
    for (std::size_t i = 0; i < previous.gauges.size(); ++i) {
      previous.families[i]->Remove(previous.gauges[i]);
    }
  }
  query_gauges_ = std::move(kept);
  for (const report::QueryCostRow& cost : costs) {
    QueryGauges added{read, cost.query, {}, {}};
    const auto set = [&](prometheus::Family<prometheus::Gauge>& family, MetricId id, double value) {
      Gauge& gauge = family.Add(labels(id, {cluster_, cost.query, read}));
      gauge.Set(value);
      added.gauges.push_back(&gauge);
      added.families.push_back(&family);
    };
    set(query_bytes_, MetricId::kSourceQueryResponseBytes,
        static_cast<double>(cost.response_bytes));
    set(query_series_, MetricId::kSourceQuerySeries, static_cast<double>(cost.series));
    if (cost.eval_seconds) {
      set(query_eval_, MetricId::kSourceQueryEvalSeconds, *cost.eval_seconds);
      set(query_exec_, MetricId::kSourceQueryExecSeconds, cost.exec_seconds.value_or(0));
      set(query_samples_, MetricId::kSourceQuerySamples, cost.queryable_samples.value_or(0));
    }
    const auto same =
        std::find_if(query_gauges_.begin(), query_gauges_.end(),
                     [&](const QueryGauges& g) { return g.read == read && g.query == cost.query; });
    if (same == query_gauges_.end()) {
      query_gauges_.push_back(std::move(added));
    } else {
      for (std::size_t i = 0; i < same->gauges.size(); ++i) {  // e.g. no stats this time
        if (std::find(added.gauges.begin(), added.gauges.end(), same->gauges[i]) ==
            added.gauges.end()) {
          same->families[i]->Remove(same->gauges[i]);
        }
      }
      *same = std::move(added);
    }
  }
}

void SelfMetrics::recordCycleFailure(std::string_view source,
                                     [[maybe_unused]] std::string_view reason) {
  cycles_.Add(labels(MetricId::kCyclesTotal, {cluster_, "failure"})).Increment();
  source_up_.Add(labels(MetricId::kSourceUp, {cluster_, source})).Set(0);
}

void SelfMetrics::setStale(bool stale, double data_age_seconds) {
  stale_.Add(labels(MetricId::kAnalysisStale, {cluster_})).Set(stale ? 1 : 0);
  data_age_.Add(labels(MetricId::kDataAge, {cluster_})).Set(data_age_seconds);
}

void SelfMetrics::setConfigReloadSuccessful(bool ok) {
  reload_ok_.Add(labels(MetricId::kConfigLastReloadSuccessful, {cluster_})).Set(ok ? 1 : 0);
}

}  // namespace dagadvisor::exporter
