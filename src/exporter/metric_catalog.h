#pragma once

#include <cstddef>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

// Every metric the daemon exports, in one table: the emitters (self_metrics, report_collector)
// take names, help and label names from here, and docs and tests read it. Adding a metric is one
// row here plus the code that fills it.
namespace dagadvisor::exporter {

enum class MetricType { kCounter, kGauge, kHistogram };

/// Rows of the catalog, in exposition order.
enum class MetricId : std::size_t {
  kBuildInfo,
  kCycleDuration,
  kCyclesTotal,
  kLastSuccessfulCycle,
  kAnalysisStale,
  kDataAge,
  kSourceUp,
  kSourceQueries,
  kSourceResponseBytes,
  kSourceQueryResponseBytes,
  kSourceQuerySeries,
  kSourceQueryEvalSeconds,
  kSourceQueryExecSeconds,
  kSourceQuerySamples,
  kDetectorDuration,
  kDetectorSuccess,
  kConfigLastReloadSuccessful,
  kRecommendationsActive,
  kFindings,
  kClusterNodes,
  kClusterGpuNodes,
  kClusterPods,
  kPendingPods,
  kGpusAllocatable,
  kGpusRequested,
  kGpuNodeHoarded,
  kGpuNodeFreeGpus,
  kGpuNodeNonGpuCpuShare,
  kDagRunMakespan,
  kDagRunElapsed,
  kDagRunCriticalPath,
  kDagRunEfficiency,
  kDagRunWaitShare,
  kDagRunWhatIfMakespan,
  kSchedulingLatency,
  kSchedulerPendingPods,
  kNodeStrandedShare,
  kCount,  // not a metric: the number of rows
};

/// Every series carries this label first: the cluster the analysis is about (SPEC §2, several
/// clusters per backend).
inline constexpr std::string_view kClusterLabel = "cluster";

struct MetricSpec {
  MetricId id;
  std::string_view name;  // full name, "dagadvisor_…"; counters end in "_total"
  MetricType type;
  std::string_view help;
  std::vector<std::string_view> labels;  // label names in order; always starts with "cluster"
};

/// The whole catalog, indexed by MetricId.
std::span<const MetricSpec> metricCatalog();

/// One row of the catalog.
const MetricSpec& metricSpec(MetricId id);

/// The spec's label names paired with `values` in order. `values` must hold one value per label
/// (cluster first); a short list leaves the missing labels empty, extra values are ignored.
std::vector<std::pair<std::string, std::string>> labelPairs(
    const MetricSpec& spec, std::initializer_list<std::string_view> values);

/// "counter", "gauge", "histogram" (as the exposition's TYPE line spells them).
std::string_view metricTypeName(MetricType type);

/// docs/metrics.md: an introduction and one Markdown table row per catalogued metric,
/// `| \`name\` | type | labels | help |`, in catalog order. The file is generated from this.
std::string renderMetricsMarkdown();

}  // namespace dagadvisor::exporter
