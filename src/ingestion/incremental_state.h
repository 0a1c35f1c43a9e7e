#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "common/clock.h"
#include "ingestion/cluster_builder.h"
#include "ingestion/range_start.h"
#include "ingestion/usage_table.h"
#include "model/cluster.h"
#include "model/record_index.h"
#include "sources/prometheus/response_parser.h"

namespace dagadvisor::ingestion {

/// What an incremental reader keeps from one read to the next: the pods of the last snapshot
/// (shared with it, not copied), whether each is gone and if so the time of its newest
/// kube_pod_info sample, and the last usage read. Replaced whole after each successful read; a
/// failed one resets it, so a failure cannot leave it half-updated.
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

  /// Pods by namespace, name and uid.
  class PodSet {
   public:
    void add(std::string_view namespace_, std::string_view name, std::string_view uid);
    void add(const model::Pod& pod) { add(pod.namespace_, pod.name, pod.uid); }
    bool contains(std::string_view namespace_, std::string_view name, std::string_view uid) const;
    bool contains(const model::Pod& pod) const {
      return contains(pod.namespace_, pod.name, pod.uid);
    }
    bool contains(const model::Fingerprint& key) const { return index_.find(key).has_value(); }
    std::size_t size() const { return index_.size(); }
    /// Each pod's podKey(namespace, name, uid), in the order added.
    const std::vector<model::Fingerprint>& keys() const { return keys_; }

   private:
    model::RecordIndex index_;
    std::vector<model::Fingerprint> keys_;
  };

  /// No read has succeeded yet, or the last one failed: the next read is a full one.
  bool empty() const { return !read_at_; }
  UnixSeconds readAt() const { return *read_at_; }
  UnixSeconds fullReadAt() const { return full_read_at_; }
  UnixSeconds usageReadAt() const { return usage_read_at_; }
  const std::shared_ptr<const UsageTable>& usage() const { return usage_; }
  const model::ClusterSnapshot::SpecFamilies& specFamilies() const { return spec_families_; }
  std::size_t size() const { return concluded_.size(); }

  bool knows(std::string_view namespace_, std::string_view name, std::string_view uid) const;

  /// The kept pods a read found gone whose newest sample a window from `window_start` holds (as
  /// the backend reads ranges, rangeStart()): a window from there that does not find them gone
  /// again finds them live (a scrape of kube-state-metrics that failed made them look deleted),
  /// and reads them again.
  std::vector<const model::Pod*> goneWithin(UnixSeconds window_start) const;

  /// The kept pods, not gone, that the last read left Pending, of unknown phase or unbound: the
  /// only kept pods that can still be bound or leave Pending.
  std::vector<const model::Pod*> unsettled() const;

  /// Moves into `builder` every kept pod whose newest sample is still within `lookback` of `at`
  /// as the backend reads ranges (the others a full read would no longer see), as it was read
  /// (forgetListedSpec), to merge with what this read answered, and gives it their storage for the
  /// new snapshot. The pods are moved, not copied, when their last snapshot is gone (its holder is
  /// done with it); a copy of 100,000 pods was a third of a window read's cost. What is left holds
  /// no pods, only what `after` needs: the read replaces it next (a failed read resets it).
  void moveInto(ClusterBuilder& builder, UnixSeconds at, double lookback_seconds);

  /// What a successful read leaves: the pods of `snapshot`. A pod still live has its newest
  /// sample at the read. One `gone` now, or found gone earlier with its newest sample out of the
  /// window from `window_start`, has it from `newest`, else the one kept, else `window_start`.
  struct Read {
    UnixSeconds at;
    bool full;
    UnixSeconds usage_read_at;  // when the usage the snapshot carries was read
    UnixSeconds window_start;
    RangeStart range_start;  // as the backend read this read's ranges
  };
  /// How the backend read the ranges of the last read.
  RangeStart rangeStart() const { return range_start_; }

  IncrementalState after(const Read& read, const model::ClusterSnapshot& snapshot,
                         const NewestSamples& newest, const PodSet& gone,
                         std::shared_ptr<const UsageTable> usage) const;

 private:
  // What a read concluded of each pod of pods_, in the same order.
  struct Concluded {
    UnixSeconds newest_sample;
    bool gone;               // deleted: it leaves the lookback once its newest sample does
    model::Fingerprint key;  // podKey: the next read finds it by this
  };
  std::shared_ptr<const model::ClusterSnapshot::Pods> pods_;
  std::vector<Concluded> concluded_;
  // Where in pods_ the gone ones are: a few among ~100,000, which goneWithin would otherwise
  // walk every window read (4.4 % of the reader's profile at the reference size, 0.3 % now).
  std::vector<std::size_t> gone_;
  model::RecordIndex index_;  // by namespace, name and uid
  std::shared_ptr<const UsageTable> usage_ = std::make_shared<UsageTable>();
  model::ClusterSnapshot::SpecFamilies spec_families_;
  std::optional<UnixSeconds> read_at_;
  UnixSeconds full_read_at_ = 0;
  UnixSeconds usage_read_at_ = 0;
  RangeStart range_start_ = RangeStart::kClosed;
};

}  // namespace dagadvisor::ingestion
