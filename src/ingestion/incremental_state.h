#pragma once

#include <optional>
#include <vector>

#include "common/clock.h"
#include "ingestion/cluster_builder.h"
#include "model/cluster.h"
#include "model/record_index.h"
#include "sources/prometheus/response_parser.h"

namespace dagadvisor::ingestion {

/// What an incremental reader keeps from one read to the next: every pod of the last snapshot
/// with the time of its newest kube_pod_info sample, and the last usage read. Replaced whole
/// after each successful read and never touched by a failed one, so a failure cannot leave it
/// half-updated.
class IncrementalState {
 public:
  /// The newest kube_pod_info sample of each pod, as podNewestSampleQuery answers.
  class NewestSamples {
   public:
    void add(const sources::SampleView& sample);
    std::optional<UnixSeconds> of(const model::Pod& pod) const;

   private:
    std::vector<UnixSeconds> newest_;
    model::RecordIndex index_;  // by namespace, name and uid
  };

  /// No read has succeeded yet, or the last one failed: the next read is a full one.
  bool empty() const { return !read_at_; }
  UnixSeconds readAt() const { return *read_at_; }
  UnixSeconds fullReadAt() const { return full_read_at_; }
  UnixSeconds usageReadAt() const { return usage_read_at_; }
  const std::vector<ClusterBuilder::UsageRecord>& usage() const { return usage_; }

  bool knows(const model::Pod& pod) const;

  /// Hands `builder` every kept pod whose newest sample is still within `lookback` of `at` (the
  /// others a full read would no longer see), to merge with what this read answered.
  void keepInto(ClusterBuilder& builder, UnixSeconds at, double lookback_seconds) const;

  /// What a successful read leaves: the pods of `snapshot`, each with its newest sample from
  /// `newest`, else the one kept, else `window_start` (it was answered within the window).
  struct Read {
    UnixSeconds at;
    bool full;
    bool usage_read;
    UnixSeconds window_start;
  };
  IncrementalState after(const Read& read, const model::ClusterSnapshot& snapshot,
                         const NewestSamples& newest,
                         std::vector<ClusterBuilder::UsageRecord> usage) const;

 private:
  struct KeptPod {
    model::Pod pod;
    UnixSeconds newest_sample;
  };
  std::vector<KeptPod> pods_;
  model::RecordIndex index_;  // by namespace, name and uid
  std::vector<ClusterBuilder::UsageRecord> usage_;
  std::optional<UnixSeconds> read_at_;
  UnixSeconds full_read_at_ = 0;
  UnixSeconds usage_read_at_ = 0;
};

}  // namespace dagadvisor::ingestion
