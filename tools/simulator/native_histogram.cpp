#include "native_histogram.h"

#include <cmath>
#include <cstdint>
#include <cstring>

#include "exposition.h"

namespace dagadvisor::sim {
namespace {

// Protobuf wire types (https://protobuf.dev/programming-guides/encoding/).
enum WireType : std::uint32_t { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2 };

// Field numbers of io.prometheus.client's metrics.proto (proto2).
namespace field {
constexpr std::uint32_t kFamilyName = 1, kFamilyHelp = 2, kFamilyType = 3, kFamilyMetric = 4;
constexpr std::uint32_t kMetricLabel = 1, kMetricHistogram = 7;
constexpr std::uint32_t kLabelName = 1, kLabelValue = 2;
constexpr std::uint32_t kSampleCount = 1, kSampleSum = 2, kSchema = 5, kZeroThreshold = 6,
                        kZeroCount = 7, kPositiveSpan = 12, kPositiveDelta = 13;
constexpr std::uint32_t kSpanOffset = 1, kSpanLength = 2;
}  // namespace field
constexpr std::uint64_t kHistogramType = 4;  // MetricType.HISTOGRAM

class Message {
 public:
  void varint(std::uint32_t number, std::uint64_t value) {
    tag(number, kVarint);
    raw(value);
  }
  void signedVarint(std::uint32_t number, std::int64_t value) {
    varint(number, (static_cast<std::uint64_t>(value) << 1) ^
                       static_cast<std::uint64_t>(value >> 63));  // zigzag
  }
  void fixedDouble(std::uint32_t number, double value) {
    tag(number, kFixed64);
    std::uint64_t bits = 0;
    std::memcpy(&bits, &value, sizeof bits);
    for (int i = 0; i < 8; ++i) {
      bytes_ += static_cast<char>((bits >> (8 * i)) & 0xff);
    }
  }
  void bytes(std::uint32_t number, const std::string& value) {
    tag(number, kLengthDelimited);
    raw(value.size());
    bytes_ += value;
  }
  void message(std::uint32_t number, const Message& inner) { bytes(number, inner.bytes_); }
  /// The message preceded by its length, as the delimited exposition format frames it.
  std::string delimited() const {
    Message framed;
    framed.raw(bytes_.size());
    return framed.bytes_ + bytes_;
  }

 private:
  void tag(std::uint32_t number, WireType type) { raw((number << 3) | type); }
  void raw(std::uint64_t value) {
    do {
      const auto low = static_cast<char>(value & 0x7f);
      value >>= 7;
      bytes_ += static_cast<char>(low | (value != 0 ? 0x80 : 0));
    } while (value != 0);
  }

  std::string bytes_;
};

Message span(std::int64_t offset, std::uint64_t length) {
  Message s;
  s.signedVarint(field::kSpanOffset, offset);
  s.varint(field::kSpanLength, length);
  return s;
}

// Consecutive indices share a span; a gap starts a new one whose offset is the gap's width.
// An empty histogram still gets one empty span: without any span Prometheus would read it as a
// classic histogram.
void writeBuckets(Message& h, const NativeHistogram& hist) {
  if (hist.positive.empty()) {
    h.message(field::kPositiveSpan, span(0, 0));
    return;
  }
  std::vector<std::pair<std::int64_t, std::uint64_t>> spans;
  int next = 0;
  for (const auto& [index, count] : hist.positive) {
    if (spans.empty() || index != next) {
      spans.emplace_back(spans.empty() ? index : index - next, 0);
    }
    ++spans.back().second;
    next = index + 1;
  }
  for (const auto& [offset, length] : spans) {
    h.message(field::kPositiveSpan, span(offset, length));
  }
  double previous = 0;
  for (const auto& [index, count] : hist.positive) {
    h.signedVarint(field::kPositiveDelta, static_cast<std::int64_t>(count - previous));
    previous = count;
  }
}

Message histogramMessage(const NativeHistogram& hist) {
  Message h;
  h.varint(field::kSampleCount, static_cast<std::uint64_t>(hist.count));
  h.fixedDouble(field::kSampleSum, hist.sum);
  h.signedVarint(field::kSchema, NativeHistogram::kSchema);
  h.fixedDouble(field::kZeroThreshold, NativeHistogram::kZeroThreshold);
  h.varint(field::kZeroCount, static_cast<std::uint64_t>(hist.zero_count));
  writeBuckets(h, hist);
  return h;
}

}  // namespace

int NativeHistogram::bucketIndex(double value) {
  // Bucket i's upper bound is 2^(i / 2^schema); frexp keeps exact powers of two exact.
  int exponent = 0;
  const double fraction = std::frexp(value, &exponent);  // value = fraction · 2^exponent
  const int per_octave = 1 << kSchema;
  return static_cast<int>(std::ceil(std::log2(fraction) * per_octave)) + exponent * per_octave;
}

void NativeHistogram::observe(double value) {
  count += 1;
  sum += value;
  if (std::abs(value) <= kZeroThreshold) {
    zero_count += 1;
  } else {
    positive[bucketIndex(value)] += 1;
  }
}

std::string encodeNativeFamily(const std::string& name, const std::string& help,
                               const std::vector<std::pair<LabelPairs, NativeHistogram>>& metrics) {
  Message family;
  family.bytes(field::kFamilyName, name);
  family.bytes(field::kFamilyHelp, help);
  family.varint(field::kFamilyType, kHistogramType);
  for (const auto& [labels, hist] : metrics) {
    Message metric;
    for (const auto& [label, value] : labels) {
      Message pair;
      pair.bytes(field::kLabelName, label);
      pair.bytes(field::kLabelValue, value);
      metric.message(field::kMetricLabel, pair);
    }
    metric.message(field::kMetricHistogram, histogramMessage(hist));
    family.message(field::kFamilyMetric, metric);
  }
  return family.delimited();
}

std::string nativeSliScrape(const History& history, double t) {
  std::map<int, NativeHistogram> by_attempts;
  for (const SliObservation& o : history.sli) {
    if (o.time <= t) {
      by_attempts[o.attempts].observe(o.seconds);
    }
  }
  const Instances instances;
  std::vector<std::pair<LabelPairs, NativeHistogram>> metrics;
  for (const auto& [attempts, hist] : by_attempts) {
    metrics.push_back({{{"job", "kube-scheduler"},
                        {"instance", instances.scheduler},
                        {"attempts", std::to_string(attempts)}},
                       hist});
  }
  return encodeNativeFamily("scheduler_pod_scheduling_sli_duration_seconds",
                            "E2e latency for a pod being scheduled, from the time the pod enters "
                            "the scheduling queue until it is bound.",
                            metrics);
}

}  // namespace dagadvisor::sim
