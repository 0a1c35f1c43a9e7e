#include "ingestion/incremental_state.h"

#include <algorithm>
#include <utility>

namespace dagadvisor::ingestion {
namespace {

model::Fingerprint podKey(std::string_view namespace_, std::string_view name,
                          std::string_view uid) {
  return model::fingerprint(namespace_, name, uid);
}

model::Fingerprint podKey(const model::Pod& pod) {
  return podKey(pod.namespace_, pod.name, pod.uid);
}

}  // namespace

void IncrementalState::NewestSamples::add(const sources::SampleView& sample) {
  const std::string_view name = sample.label("pod");
  if (name.empty()) {
    return;
  }
  const auto [index, fresh] =
      index_.findOrInsert(podKey(sample.label("namespace"), name, sample.label("uid")),
                          static_cast<model::RecordIndex::Record>(newest_.size()));
  if (fresh) {
    newest_.push_back(sample.value);
  } else {
    newest_[index] = std::max(newest_[index], sample.value);
  }
}

std::optional<UnixSeconds> IncrementalState::NewestSamples::of(const model::Pod& pod) const {
  if (const auto index = index_.find(podKey(pod))) {
    return newest_[*index];
  }
  return std::nullopt;
}

bool IncrementalState::knows(const model::Pod& pod) const {
  return index_.find(podKey(pod)).has_value();
}

void IncrementalState::keepInto(ClusterBuilder& builder, UnixSeconds at,
                                double lookback_seconds) const {
  // The full read's last_over_time(…[lookback]) sees a sample at exactly at − lookback.
  const UnixSeconds oldest = at - lookback_seconds;
  for (const KeptPod& kept : pods_) {
    if (kept.newest_sample >= oldest) {
      builder.keepPod(kept.pod);
    }
  }
}

IncrementalState IncrementalState::after(const Read& read, const model::ClusterSnapshot& snapshot,
                                         const NewestSamples& newest,
                                         std::vector<ClusterBuilder::UsageRecord> usage) const {
  IncrementalState next;
  next.pods_.reserve(snapshot.pods().size());
  for (const model::Pod& pod : snapshot.pods()) {
    const model::Fingerprint key = podKey(pod);
    UnixSeconds newest_sample = read.window_start;
    if (const auto answered = newest.of(pod)) {
      newest_sample = *answered;
    } else if (const auto index = index_.find(key)) {
      newest_sample = pods_[*index].newest_sample;
    }
    next.index_.findOrInsert(key, static_cast<model::RecordIndex::Record>(next.pods_.size()));
    next.pods_.push_back({pod, newest_sample});
  }
  next.usage_ = std::move(usage);
  next.read_at_ = read.at;
  next.full_read_at_ = read.full ? read.at : full_read_at_;
  next.usage_read_at_ = read.usage_read ? read.at : usage_read_at_;
  return next;
}

}  // namespace dagadvisor::ingestion
