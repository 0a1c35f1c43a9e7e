#include "ingestion/series_once.h"

#include <functional>
#include <string_view>

namespace dagadvisor::ingestion {
namespace {

// splitmix64's finaliser: spreads each label's hash over 64 bits before they are summed.
std::uint64_t mixed(std::uint64_t x) {
  x = (x ^ (x >> 30U)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27U)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31U);
}

// A sum of the labels' hashes: the same set in any order (JSON objects have none) hashes alike.
std::uint64_t labelSetHash(const sources::SampleView& sample) {
  const std::hash<std::string_view> hash;
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < sample.label_count; ++i) {
    const auto& [name, value] = sample.labels[i];
    sum += mixed(hash(name) * 0x9e3779b97f4a7c15ULL + hash(value));
  }
  return sum;
}

std::string describeLabels(const sources::SampleView& sample) {
  std::string out = "{";
  for (std::size_t i = 0; i < sample.label_count; ++i) {
    const auto& [name, value] = sample.labels[i];
    out += (i == 0 ? "" : ", ") + std::string(name) + "=\"" + std::string(value) + "\"";
  }
  return out + "}";
}

}  // namespace

void SeriesOnce::operator()(const sources::SampleView& sample) {
  if (repeated_) {
    return;
  }
  if (!seen_.insert(labelSetHash(sample)).second) {
    repeated_ = describeLabels(sample);
    return;
  }
  sink_(sample);
}

}  // namespace dagadvisor::ingestion
