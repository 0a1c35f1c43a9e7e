#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <tuple>
#include <vector>

#include "common/clock.h"
#include "replay/replay_input.h"

namespace dagadvisor::replay {

/// kube-scheduler's per-pod backoff: 1 s doubling per failed attempt up to 10 s (the
/// podInitialBackoffSeconds and podMaxBackoffSeconds defaults).
struct BackoffPolicy {
  double initial_seconds = 1;
  double max_seconds = 10;

  double after(std::uint32_t attempts) const;
};

/// What orders pods of equal priority in the active queue.
enum class QueueOrder {
  /// kube-scheduler: the queue timestamp, refreshed whenever an unschedulable pod is re-added,
  /// so under contention the pods take turns rather than keep their arrival order.
  kQueueTimestamp,
  /// First come, first served by arrival (what dagadvisor-sim does).
  kArrival,
};

/// The scheduling queue of the default profile: an active queue sorted by PrioritySort
/// (higher priority first, then the earlier queue timestamp), and the pods parked as
/// unschedulable until the cluster changes. There is no periodic flush: in a replay nothing
/// changes between events, so a retry without an event would fail again.
class SchedulingQueue {
 public:
  SchedulingQueue(std::size_t pods, BackoffPolicy backoff,
                  QueueOrder order = QueueOrder::kQueueTimestamp)
      : entries_(pods), backoff_(backoff), order_(order) {}

  /// Puts `pod` in the active queue. A new pod is stamped `now`; one coming back after a failed
  /// attempt keeps the time of that attempt under kQueueTimestamp (kube-scheduler refreshes the
  /// timestamp when it re-adds an unschedulable pod), its first stamp under kArrival.
  void activate(ReplayPodId pod, std::int64_t priority, UnixSeconds now);
  /// The next pod to schedule, removed from the active queue; nullopt when it is empty.
  std::optional<ReplayPodId> pop();
  bool empty() const { return active_.empty(); }

  /// A failed attempt at `now`. Only pods rejected for resources (`resolvable`) come back
  /// when a pod leaves a node; the others wait for a change no replay event makes.
  void park(ReplayPodId pod, bool resolvable, UnixSeconds now);

  /// A pod left a node: each parked resolvable pod is due again at the end of its backoff.
  /// Returns (pod, due) for each; the caller activates them at `due` (now, if passed).
  std::vector<std::pair<ReplayPodId, UnixSeconds>> releaseParked(UnixSeconds now);

  /// `pod` was deleted and created again (preempted): a new pod, with no attempts behind it.
  void recreate(ReplayPodId pod) { entries_[pod] = Entry{}; }

  /// Failed attempts of `pod` so far.
  std::uint32_t attempts(ReplayPodId pod) const { return entries_[pod].attempts; }
  /// Pods parked now (never scheduled, if the replay ends with them).
  std::vector<ReplayPodId> parked() const;

 private:
  struct Entry {
    std::uint32_t attempts = 0;
    UnixSeconds last_attempt = 0;
    UnixSeconds first_stamp = 0;
    // Order of stamps made at the same instant: kube-scheduler's clock would tell them apart.
    std::uint64_t last_seq = 0;
    std::uint64_t first_seq = 0;
    bool parked = false;
    bool resolvable = false;
  };
  using Key =
      std::tuple<std::int64_t, UnixSeconds, std::uint64_t, ReplayPodId>;  // −priority, stamp

  std::vector<Entry> entries_;
  std::set<Key> active_;
  std::vector<ReplayPodId> parked_resolvable_;
  BackoffPolicy backoff_;
  QueueOrder order_;
  std::uint64_t seq_ = 0;
};

}  // namespace dagadvisor::replay
