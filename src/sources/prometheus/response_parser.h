#pragma once

#include <cstddef>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.h"
#include "sources/metrics_source.h"

namespace dagadvisor::sources {

/// One label of a decoded sample; both views point into the parser's buffers and are valid
/// only during the visitor call.
using LabelView = std::pair<std::string_view, std::string_view>;

/// One sample of an instant vector, as seen by a visitor.
struct SampleView {
  const LabelView* labels = nullptr;
  std::size_t label_count = 0;
  double timestamp = 0;  // unix seconds
  double value = 0;      // NaN and ±Inf are decoded from Prometheus' "NaN", "+Inf", "-Inf"

  /// The value of label `name`, or "" when the sample has no such label.
  std::string_view label(std::string_view name) const {
    for (std::size_t i = 0; i < label_count; ++i) {
      if (labels[i].first == name) {
        return labels[i].second;
      }
    }
    return {};
  }
};

/// What the decoder saw besides the samples.
struct DecodeSummary {
  std::size_t samples = 0;
  std::vector<std::string> warnings;  // the response's "warnings" (e.g. Thanos partial data)
};

/// What Prometheus says one instant query cost it: the `data.stats` that a request with
/// `stats=all` gets (Prometheus 2.x; other backends may leave it out).
struct QueryStats {
  double eval_seconds = 0;       // timings.evalTotalTime: evaluating the expression
  double exec_seconds = 0;       // timings.execTotalTime: queueing, preparation and evaluation
  double queryable_samples = 0;  // samples.totalQueryableSamples: samples the query read
  double peak_samples = 0;       // samples.peakSamples: most samples held at once
};

/// The stats at the end of an instant-query body, or nullopt when it carries none (or they do
/// not parse). Reads only the body's tail: Prometheus writes `stats` after `result`.
std::optional<QueryStats> parseQueryStats(std::string_view body);

using SampleVisitor = std::function<void(const SampleView&)>;

/// Bounds on one body, checked while it is walked: what a valid answer may cost the model is
/// set by its series, not its bytes (2.7 M series in 197 MB took 5.9 GB).
struct DecodeLimits {
  std::size_t max_samples = std::numeric_limits<std::size_t>::max();
  std::string_view setting = {};  // the configuration key of max_samples, named by the Error
};

/// Decodes a Prometheus HTTP API instant-query body (`resultType` "vector" or "scalar") and calls
/// `visit` once per sample, in response order. A body with `"status":"error"` becomes an Error
/// carrying `errorType` and `error`; malformed or wrong-typed JSON becomes an Error with the JSON
/// path of the fault. The body is validated as it is walked: on an Error the visitor may already
/// have seen the samples before the fault. Never throws.
Result<DecodeSummary> decodeInstantVector(std::string_view body, const SampleVisitor& visit);

/// The same, parsing the body in place when it carries kBodyPadding spare capacity (as every
/// source's bodies do) instead of first copying it into a padded buffer: at the reference
/// cluster's sizes that copy is the largest allocation of the cycle. A vector of more than
/// `limits.max_samples` samples is an Error naming the cap and its setting, returned as soon as
/// the sample past it is reached (the visitor has seen exactly max_samples).
Result<DecodeSummary> decodeInstantVector(const QueryBody& body, const SampleVisitor& visit,
                                          const DecodeLimits& limits = {});

/// The simdjson kernel the decoder walks bodies with ("icelake", "haswell", "westmere",
/// "fallback", …): the one simdjson's runtime dispatch chose for this CPU (the environment
/// variable SIMDJSON_FORCE_IMPLEMENTATION overrides it), chosen once per process.
std::string_view decoderKernel();

namespace detail {

/// The kernels compiled in that this CPU can run, fastest first (for tests and benchmarks).
std::vector<std::string_view> decoderKernels();

/// decodeInstantVector with the kernel named `kernel`; an Error when it is not in
/// decoderKernels().
Result<DecodeSummary> decodeInstantVectorWith(std::string_view kernel, std::string_view body,
                                              const SampleVisitor& visit);
Result<DecodeSummary> decodeInstantVectorWith(std::string_view kernel, const QueryBody& body,
                                              const SampleVisitor& visit,
                                              const DecodeLimits& limits = {});

}  // namespace detail

}  // namespace dagadvisor::sources
