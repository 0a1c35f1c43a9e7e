#include "ingestion/incremental_state.h"

#include <algorithm>
#include <utility>

namespace dagadvisor::ingestion {
namespace {

model::Fingerprint keyOfPod(const model::Pod& pod) {
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
  if (const auto index = index_.find(keyOfPod(pod))) {
    return newest_[*index];
  }
  return std::nullopt;
}

void IncrementalState::PodSet::add(std::string_view namespace_, std::string_view name,
                                   std::string_view uid) {
  const model::Fingerprint key = podKey(namespace_, name, uid);
  if (index_.findOrInsert(key, 0).second) {
    keys_.push_back(key);
  }
}

bool IncrementalState::PodSet::contains(std::string_view namespace_, std::string_view name,
                                        std::string_view uid) const {
  return contains(podKey(namespace_, name, uid));
}

bool IncrementalState::knows(std::string_view namespace_, std::string_view name,
                             std::string_view uid) const {
  return index_.find(podKey(namespace_, name, uid)).has_value();
}

std::vector<const model::Pod*> IncrementalState::goneWithin(UnixSeconds window_start) const {
  std::vector<const model::Pod*> out;
  for (const std::size_t i : gone_) {
    if (rangeHolds(range_start_, window_start, concluded_[i].newest_sample)) {
      out.push_back(&(*pods_)[i]);
    }
  }
  return out;
}

std::vector<const model::Pod*> IncrementalState::unsettled() const {
  std::vector<const model::Pod*> out;
  if (!pods_) {
    return out;
  }
  for (std::size_t i = 0; i < concluded_.size(); ++i) {
    const model::Pod& pod = (*pods_)[i];
    const bool done =
        pod.phase == model::PodPhase::kSucceeded || pod.phase == model::PodPhase::kFailed;
    const bool may_change = pod.phase == model::PodPhase::kPending ||
                            pod.phase == model::PodPhase::kUnknown || pod.node_name.empty();
    if (!concluded_[i].gone && !done && may_change) {
      out.push_back(&pod);
    }
  }
  return out;
}

void IncrementalState::moveInto(ClusterBuilder& builder, UnixSeconds at, double lookback_seconds) {
  model::ClusterSnapshot::Pods pods = model::ClusterSnapshot::takePods(std::move(pods_));
  // What the full read's last_over_time(…[lookback]) sees.
  const UnixSeconds oldest = at - lookback_seconds;
  builder.reservePods(pods.size());
  for (std::size_t i = 0; i < pods.size(); ++i) {
    if (rangeHolds(range_start_, oldest, concluded_[i].newest_sample)) {
      pods[i].forgetListedSpec();
      builder.keepPod(std::move(pods[i]), concluded_[i].key);
    }
  }
  builder.reuseStorage(std::move(pods));
}

IncrementalState IncrementalState::after(const Read& read, const model::ClusterSnapshot& snapshot,
                                         const NewestSamples& newest, const PodSet& gone,
                                         std::shared_ptr<const UsageTable> usage) const {
  // The kept pods found gone, by key: each pod is looked up among these few hundred, in cache,
  // not among all ~112,000 kept.
  model::RecordIndex kept_gone_index;
  for (const std::size_t i : gone_) {
    kept_gone_index.findOrInsert(concluded_[i].key, static_cast<model::RecordIndex::Record>(i));
  }
  IncrementalState next;
  next.pods_ = snapshot.sharedPods();
  next.concluded_.reserve(snapshot.pods().size());
  next.index_.reserve(snapshot.pods().size());
  for (const model::Pod& pod : snapshot.pods()) {
    const model::Fingerprint key = keyOfPod(pod);
    const auto kept = kept_gone_index.find(key);
    const bool kept_gone =
        kept && !rangeHolds(read.range_start, read.window_start, concluded_[*kept].newest_sample);
    Concluded concluded{read.at, gone.contains(key) || kept_gone, key};
    if (concluded.gone) {
      if (const auto answered = newest.of(pod)) {
        concluded.newest_sample = *answered;
      } else {
        concluded.newest_sample = kept_gone ? concluded_[*kept].newest_sample : read.window_start;
      }
      next.gone_.push_back(next.concluded_.size());
    }
    next.index_.findOrInsert(key, static_cast<model::RecordIndex::Record>(next.concluded_.size()));
    next.concluded_.push_back(concluded);
  }
  next.usage_ = std::move(usage);
  next.spec_families_ = snapshot.specFamilies();
  next.read_at_ = read.at;
  next.full_read_at_ = read.full ? read.at : full_read_at_;
  next.usage_read_at_ = read.usage_read_at;
  next.range_start_ = read.range_start;
  return next;
}

}  // namespace dagadvisor::ingestion
