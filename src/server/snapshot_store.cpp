#include "server/snapshot_store.h"

#include <algorithm>
#include <cmath>

#include "common/secrets.h"
#include "report/prediction_json.h"
#include "report/report_json.h"

namespace dagadvisor::server {
namespace {

std::string wholeSeconds(double seconds) {
  return std::to_string(static_cast<long long>(std::floor(seconds))) + "s";
}

}  // namespace

std::string RenderCache::get(const std::string& key,
                             const std::function<std::string()>& render) const {
  {
    std::lock_guard lock(mutex_);
    if (const auto it = entries_.find(key); it != entries_.end()) {
      return it->second;
    }
  }
  std::string value = render();
  std::lock_guard lock(mutex_);
  if (entries_.size() < kMaxEntries) {
    return entries_.emplace(key, std::move(value)).first->second;
  }
  return value;
}

SnapshotStore::SnapshotStore(const Clock& clock, double stale_after_seconds)
    : clock_(clock), stale_after_(stale_after_seconds) {}

void SnapshotStore::publish(std::shared_ptr<const report::AnalysisReport> report) {
  if (!report) {
    return;
  }
  auto published = std::make_shared<Published>();
  published->recommendations = report::dumpJson(report::recommendationsJson(*report));
  published->prediction = report::dumpJson(report::predictionSummaryJson(*report));
  published->findings = report::dumpJson(report::findingsJson(*report));
  published->dags = report::dumpJson(report::runsJson(*report));
  published->summary = report::dumpJson(report::clusterSummaryJson(report->summary));
  published->detectors = report::dumpJson(report::detectorsJson(*report));
  published->nodes = report::dumpJson(report::nodesJson(*report));
  published->scheduling = report::dumpJson(report::schedulingJson(*report));
  published->report = std::move(report);
  const UnixSeconds now = clock_.now();
  std::lock_guard lock(mutex_);
  current_ = std::move(published);
  status_.last_attempt = now;
  status_.last_success = now;
  status_.last_error.clear();
  status_.consecutive_failures = 0;
}

void SnapshotStore::recordFailure(std::string error) {
  const UnixSeconds now = clock_.now();
  std::lock_guard lock(mutex_);
  status_.last_attempt = now;
  status_.last_error = error.empty() ? "unknown error" : scrubSecrets(error);
  ++status_.consecutive_failures;
}

void SnapshotStore::recordReload(std::string problem) {
  std::lock_guard lock(mutex_);
  reload_problem_ = scrubSecrets(problem);
}

std::shared_ptr<const Published> SnapshotStore::current() const {
  std::lock_guard lock(mutex_);
  return current_;
}

CycleStatus SnapshotStore::status() const {
  std::lock_guard lock(mutex_);
  return status_;
}

Freshness SnapshotStore::freshness() const {
  std::shared_ptr<const Published> published;
  CycleStatus cycle;
  Freshness out;
  {
    std::lock_guard lock(mutex_);  // one consistent view of report and cycle status
    published = current_;
    cycle = status_;
    out.reload_problem = reload_problem_;
  }
  if (!published) {
    // Before the first success the failure is the one thing worth saying.
    const bool failed = cycle.consecutive_failures > 0;
    out.short_reason = failed ? "no analysis yet: last cycle failed" : "no analysis yet";
    out.reason = failed ? out.short_reason + ": " + cycle.last_error : out.short_reason;
    return out;
  }
  const UnixSeconds now = clock_.now();
  out.age_seconds = std::max(0.0, now - published->report->generated_at);
  out.data_age_seconds = std::max(0.0, now - published->report->data_time);
  if (cycle.consecutive_failures > 0) {
    out.short_reason = "last cycle failed";
    out.reason = out.short_reason + ": " + cycle.last_error;
  } else if (out.age_seconds > stale_after_) {
    out.reason = "analysis is " + wholeSeconds(out.age_seconds) + " old (stale_after " +
                 wholeSeconds(stale_after_) + ")";
    out.short_reason = out.reason;
  }
  out.stale = !out.reason.empty();
  return out;
}

}  // namespace dagadvisor::server
