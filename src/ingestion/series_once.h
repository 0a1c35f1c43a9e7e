#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_set>

#include "sources/prometheus/response_parser.h"

namespace dagadvisor::ingestion {

/// Hands each series of one answer to `sink` once. Prometheus never answers one label set
/// twice, but a proxy or a backend that does not follow the API may, and the builder would sum
/// both samples (16 GPUs read as 32; with conflicting values, any figure at all). The first
/// repeated label set, and every sample after it, is kept from the sink; the caller turns
/// repeated() into an error naming the query and the series.
class SeriesOnce {
 public:
  explicit SeriesOnce(const sources::SampleVisitor& sink) : sink_(sink) {}

  void operator()(const sources::SampleView& sample);

  /// The first label set seen twice, as {name="value", …}; nullopt while there is none.
  const std::optional<std::string>& repeated() const { return repeated_; }

 private:
  const sources::SampleVisitor& sink_;
  // 64-bit hashes of the label sets, not the sets: 8 bytes a series plus the set's node, where
  // copies of the labels would cost what the answer's labels cost.
  std::unordered_set<std::uint64_t> seen_;
  std::optional<std::string> repeated_;
};

}  // namespace dagadvisor::ingestion
