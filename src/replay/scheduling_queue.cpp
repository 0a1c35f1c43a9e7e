#include "replay/scheduling_queue.h"

#include <algorithm>
#include <cmath>

namespace dagadvisor::replay {

double BackoffPolicy::after(std::uint32_t attempts) const {
  if (attempts == 0) {
    return 0;
  }
  const double doubled = initial_seconds * std::pow(2.0, static_cast<double>(attempts - 1));
  return std::min(doubled, max_seconds);
}

void SchedulingQueue::activate(ReplayPodId pod, std::int64_t priority, UnixSeconds now) {
  Entry& e = entries_[pod];
  e.parked = false;
  if (e.attempts == 0) {
    e.first_stamp = now;
    e.first_seq = ++seq_;
    active_.emplace(-priority, now, e.first_seq, pod);
  } else if (order_ == QueueOrder::kArrival) {
    active_.emplace(-priority, e.first_stamp, e.first_seq, pod);
  } else {
    active_.emplace(-priority, e.last_attempt, e.last_seq, pod);
  }
}

std::optional<ReplayPodId> SchedulingQueue::pop() {
  if (active_.empty()) {
    return std::nullopt;
  }
  const ReplayPodId pod = std::get<3>(*active_.begin());
  active_.erase(active_.begin());
  return pod;
}

void SchedulingQueue::park(ReplayPodId pod, bool resolvable, UnixSeconds now) {
  Entry& e = entries_[pod];
  ++e.attempts;
  e.last_attempt = now;
  e.last_seq = ++seq_;
  e.parked = true;
  e.resolvable = resolvable;
  if (resolvable) {
    parked_resolvable_.push_back(pod);
  }
}

std::vector<std::pair<ReplayPodId, UnixSeconds>> SchedulingQueue::releaseParked(UnixSeconds now) {
  std::vector<std::pair<ReplayPodId, UnixSeconds>> due;
  due.reserve(parked_resolvable_.size());
  for (ReplayPodId pod : parked_resolvable_) {
    Entry& e = entries_[pod];
    if (!e.parked) {
      continue;  // evicted and re-queued, or scheduled since
    }
    e.parked = false;
    due.emplace_back(pod, std::max(now, e.last_attempt + backoff_.after(e.attempts)));
  }
  parked_resolvable_.clear();
  return due;
}

std::vector<ReplayPodId> SchedulingQueue::parked() const {
  std::vector<ReplayPodId> out;
  for (ReplayPodId pod = 0; pod < entries_.size(); ++pod) {
    if (entries_[pod].parked) {
      out.push_back(pod);
    }
  }
  return out;
}

}  // namespace dagadvisor::replay
