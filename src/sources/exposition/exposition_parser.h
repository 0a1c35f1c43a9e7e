#pragma once

// Parser of the metrics text exposition formats: Prometheus text 0.0.4 and OpenMetrics 1.0.
//
// Samples reach the caller as the same `sources::SampleView` that the Prometheus JSON decoder
// (sources/prometheus/response_parser.h) produces, so a consumer such as ingestion::ClusterBuilder
// takes scraped kube-state-metrics samples exactly as it takes query results:
//   * the metric name is the FIRST label, `__name__`, as in a Prometheus response to a bare
//     selector (`kube_pod_info` → `{"__name__":"kube_pod_info", ...}`); `labels[0]` is always
//     `__name__`, so a caller that dispatches by metric name reads it without a search;
//   * the other labels follow in exposition order;
//   * `timestamp` is unix seconds (0.0.4 milliseconds are converted), or
//     `ParseOptions::default_timestamp` when the line has none (pass the scrape time);
//   * `value` is a double; NaN, +Inf and -Inf are decoded.
// Views point into the body (zero-copy) except label values that contained escapes, which are
// unescaped into a parser-owned buffer; all of them are valid only during the visitor call.
//
// A direct-scrape source (not written yet) would GET a kube-state-metrics or scheduler /metrics
// endpoint with `Accept: application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4`,
// pick the format with formatFromContentType(), call parseExposition() with the scrape time as
// default_timestamp, and map each sample's `__name__` to the ingestion::QueryId that the same
// metric has in the query catalog before handing it to ClusterBuilder::add(). A file source does
// the same with the file's bytes (the extension ".om" or a final "# EOF" tells the format).
//
// Not supported: the UTF-8 quoted metric-name syntax (`{"my.metric",a="b"}`) and native
// histograms, which only exist in the protobuf format.

#include <cstddef>
#include <functional>
#include <string_view>

#include "common/result.h"
#include "sources/prometheus/response_parser.h"

namespace dagadvisor::sources::exposition {

/// The two text formats. They differ in timestamps (ms vs s), `# EOF`, `# UNIT`, exemplars and
/// strictness about comments and blank lines.
enum class Format { kPrometheusText, kOpenMetrics };

/// The format announced by an HTTP Content-Type header: OpenMetrics for
/// "application/openmetrics-text...", the Prometheus text format for everything else.
Format formatFromContentType(std::string_view content_type);

/// A metric family's type from its `# TYPE` line; kUnknown also stands for 0.0.4's "untyped"
/// and for samples without a `# TYPE`.
enum class MetricType {
  kUnknown,
  kCounter,
  kGauge,
  kHistogram,
  kGaugeHistogram,
  kSummary,
  kInfo,
  kStateSet,
};

/// How to read one body.
struct ParseOptions {
  Format format = Format::kPrometheusText;
  double default_timestamp = 0;  // unix seconds given to samples without a timestamp
};

/// What the parser saw besides the samples.
struct ExpositionSummary {
  std::size_t samples = 0;
  std::size_t families = 0;  // `# TYPE` lines
  std::size_t lines = 0;
};

/// What a sample's SampleView cannot carry: the family it belongs to. Histogram and summary
/// series (`_bucket`, `_sum`, `_count`, `_created`, `_gsum`, `_gcount`), counters' `_total`
/// and info's `_info` resolve to the family named by the preceding `# TYPE`; any other sample
/// is its own family of type kUnknown.
struct SampleContext {
  std::string_view family;
  MetricType type = MetricType::kUnknown;
  std::size_t line = 0;  // 1-based line of the sample in the body
};

using TypedSampleVisitor = std::function<void(const SampleView&, const SampleContext&)>;

/// Parses a whole exposition body and calls `visit` once per sample, in body order. Exemplars
/// are validated and skipped. Syntax errors stop the parse and become an Error whose `field` is
/// "line N"; samples before that line have already been visited. Never throws (except what the
/// visitor throws) and never reads outside `body`.
Result<ExpositionSummary> parseExposition(std::string_view body, const ParseOptions& options,
                                          const SampleVisitor& visit);

/// Same as parseExposition, for callers that need each sample's family and type.
Result<ExpositionSummary> parseExpositionTyped(std::string_view body, const ParseOptions& options,
                                               const TypedSampleVisitor& visit);

}  // namespace dagadvisor::sources::exposition
