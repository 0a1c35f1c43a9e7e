// Native (sparse, exponential) histograms as kube-scheduler exposes them when its histograms are
// native, and the protobuf exposition format that carries them: the text formats cannot, so a
// Prometheus started with --enable-feature=native-histograms negotiates protobuf for them.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "simulation.h"

namespace dagadvisor::sim {

/// A native histogram of schema 3 (8 buckets per power of two; bucket i holds values in
/// (2^((i-1)/8), 2^(i/8)]) with Prometheus' default zero threshold.
struct NativeHistogram {
  static constexpr int kSchema = 3;
  static constexpr double kZeroThreshold = 2.938735877055719e-39;

  double count = 0;
  double sum = 0;
  double zero_count = 0;
  std::map<int, double> positive;  // bucket index → count

  void observe(double value);
  /// The bucket index of a positive value above the zero threshold.
  static int bucketIndex(double value);
};

using LabelPairs = std::vector<std::pair<std::string, std::string>>;

/// One histogram metric family in the protobuf "delimited" exposition format
/// (io.prometheus.client.MetricFamily, each message preceded by its varint length).
std::string encodeNativeFamily(const std::string& name, const std::string& help,
                               const std::vector<std::pair<LabelPairs, NativeHistogram>>& metrics);

/// The Content-Type of encodeNativeFamily's bytes.
inline constexpr const char* kProtobufContentType =
    "application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited";

/// The scheduler's SLI histogram (scheduler_pod_scheduling_sli_duration_seconds, by attempts)
/// as native histograms holding every observation up to simulated time `t`.
std::string nativeSliScrape(const History& history, double t);

}  // namespace dagadvisor::sim
