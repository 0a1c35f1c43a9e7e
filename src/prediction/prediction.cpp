#include "prediction/prediction.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <set>
#include <unordered_map>
#include <variant>

#include "analysis/transfer_measurement.h"
#include "analysis/transfer_prices.h"
#include "common/cancellation.h"
#include "prediction/perturbation.h"
#include "replay/input_builder.h"
#include "replay/scheduler_latency.h"

namespace dagadvisor::prediction {
namespace {

using Series = std::vector<double>;  // one value per perturbation
using Measure = std::function<double(const ReplayMeasures&)>;

double median(Series values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n == 0 ? 0 : (n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2);
}

struct Sides {
  const std::vector<ReplayMeasures>& before;
  const std::vector<ReplayMeasures>& after;

  BeforeAfter figure(const Measure& measure) const {
    Series b;
    Series a;
    Series change;
    for (std::size_t k = 0; k < before.size(); ++k) {
      b.push_back(measure(before[k]));
      a.push_back(measure(after[k]));
      change.push_back(a.back() - b.back());
    }
    const auto [low, high] = std::minmax_element(change.begin(), change.end());
    return {median(b), median(a), *low, *high};
  }
};

double meanOver(const std::vector<std::size_t>& ids, const std::vector<double>& values) {
  if (ids.empty()) {
    return 0;
  }
  double sum = 0;
  for (std::size_t id : ids) {
    sum += values[id];
  }
  return sum / static_cast<double>(ids.size());
}

double sumOver(const std::vector<std::size_t>& ids, const std::vector<double>& values) {
  return meanOver(ids, values) * static_cast<double>(ids.size());
}

// A run is affected when the change moves its makespan by more than a second in any replay:
// finer differences are the event order, not the change.
std::vector<std::size_t> affectedRuns(const Sides& sides) {
  std::vector<std::size_t> runs;
  const std::size_t n = sides.before.front().run_makespan.size();
  for (std::size_t r = 0; r < n; ++r) {
    for (std::size_t k = 0; k < sides.before.size(); ++k) {
      if (std::abs(sides.after[k].run_makespan[r] - sides.before[k].run_makespan[r]) > 1.0) {
        runs.push_back(r);
        break;
      }
    }
  }
  return runs;
}

std::vector<std::size_t> podsNamed(const replay::ReplayInput& input,
                                   const std::vector<std::string>& names) {
  std::unordered_map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < input.pods.size(); ++i) {
    index.emplace(input.pods[i].namespace_ + "/" + input.pods[i].name, i);
  }
  std::set<std::size_t> ids;
  for (const std::string& name : names) {
    if (auto it = index.find(name); it != index.end()) {
      ids.insert(it->second);
    }
  }
  return {ids.begin(), ids.end()};
}

std::vector<std::size_t> scheduledGpuPods(const replay::ReplayInput& input) {
  std::vector<std::size_t> ids;
  for (std::size_t i = 0; i < input.pods.size(); ++i) {
    if (replay::requestsGpusAnew(input.pods[i])) {
      ids.push_back(i);
    }
  }
  return ids;
}

std::vector<RunPrediction> listRuns(const replay::ReplayInput& input, const Sides& sides,
                                    const std::vector<std::size_t>& affected, std::size_t limit) {
  std::vector<RunPrediction> runs;
  for (std::size_t r : affected) {
    RunPrediction run{input.runs[r].id,
                      sides.figure([r](const ReplayMeasures& m) { return m.run_makespan[r]; }),
                      sides.before.front().run_complete[r] != 0,
                      sides.after.front().run_complete[r] != 0, input.runs[r].observed_finished};
    runs.push_back(std::move(run));
  }
  std::stable_sort(runs.begin(), runs.end(), [](const RunPrediction& a, const RunPrediction& b) {
    return a.makespan_seconds.change() < b.makespan_seconds.change();
  });
  runs.resize(std::min(runs.size(), limit));
  return runs;
}

double gpusOf(const replay::ReplayInput& input) {
  double gpus = 0;
  for (const replay::ReplayNode& node : input.nodes) {
    gpus += static_cast<double>(node.allocatable.gpus);
  }
  return gpus;
}

std::vector<replay::ReplayPodId> allPods(const replay::ReplayInput& input) {
  std::vector<replay::ReplayPodId> ids(input.pods.size());
  std::iota(ids.begin(), ids.end(), 0);
  return ids;
}

// `changed` (pods `ids` of perturbation 0 with the changes applied, in that order) with the run
// times of perturbation `base`. Perturbations differ only in the run times of the pods the replay
// schedules, and no change edits those, so this is `base` with the changes applied, without
// copying and editing the whole window again.
replay::ReplayInput withRunTimesOf(replay::ReplayInput changed, const replay::ReplayInput& base,
                                   const std::vector<replay::ReplayPodId>& ids) {
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (base.pods[ids[i]].role != replay::PodRole::kFixed) {
      changed.pods[i].run_seconds = base.pods[ids[i]].run_seconds;
    }
  }
  return changed;
}

// A daemon asked to stop must exit within its grace period, not after the replays.
std::optional<std::string> stopping() {
  return Cancellation::process()->stoppedBecause();
}

Prediction figures(const replay::ReplayInput& input, const Sides& sides,
                   const std::vector<std::string>& watched, std::size_t runs_listed) {
  Prediction p;
  p.replayed = true;
  p.replays = sides.before.size();
  const std::vector<std::size_t> affected = affectedRuns(sides);
  p.affected_runs = affected.size();
  p.makespan_seconds =
      sides.figure([&](const ReplayMeasures& m) { return meanOver(affected, m.run_makespan); });
  p.critical_path_wait_seconds =
      sides.figure([&](const ReplayMeasures& m) { return sumOver(affected, m.run_critical_wait); });
  const std::vector<std::size_t> watched_ids = podsNamed(input, watched);
  p.watched_pods = watched_ids.size();
  p.watched_pending_seconds = sides.figure(
      [&](const ReplayMeasures& m) { return meanOver(watched_ids, m.pod_window_wait); });
  const std::vector<std::size_t> gpu_pods = scheduledGpuPods(input);
  p.gpu_pod_pending_seconds =
      sides.figure([&](const ReplayMeasures& m) { return meanOver(gpu_pods, m.pod_window_wait); });
  p.gpu_allocation = sides.figure([](const ReplayMeasures& m) { return m.gpu_allocation; });
  p.runs = listRuns(input, sides, affected, runs_listed);
  return p;
}

// What a hand-off costs, by where the parent ran: per GB where the task pods' received bytes
// priced both kinds (analysis/transfer_prices.h), else each task's measured slowdown across zones
// (analysis' crossing measurement, the figure split-dependencies reports). Unmeasured tasks keep
// their observed run time wherever they land:
// the configured transfer model (analysis.transfer) is a guess, and a guess of a few seconds per
// edge would decide predictions it cannot support (the simulator charges minutes per GB).
replay::InputOptions inputOptions(const model::ClusterSnapshot& cluster,
                                  const std::vector<graph::RunGraph>& graphs,
                                  const analysis::ZoneIndex& zones,
                                  const analysis::TransferPrices& prices,
                                  const PredictionOptions& options) {
  replay::InputOptions out;
  out.zone_label = options.zone_label;
  if (prices.measured()) {
    out.transfer_prices = {prices.same_zone.seconds_per_gb / analysis::kBytesPerGb,
                           prices.cross_zone.seconds_per_gb / analysis::kBytesPerGb};
  }
  const analysis::CrossingMeasurements crossings =
      analysis::measureCrossings(graphs, cluster, zones);
  for (const graph::RunGraph& g : graphs) {
    for (model::TaskIndex t = 0; t < g.run->tasks.size(); ++t) {
      const auto it = crossings.find(analysis::taskKey(*g.run, t));
      if (it != crossings.end() && it->second.costSeconds() > 0) {
        out.cross_zone_seconds.emplace(g.run->tasks[t].pod, it->second.costSeconds());
      }
    }
  }
  return out;
}

}  // namespace

Result<PredictionContext> PredictionContext::build(const model::ClusterSnapshot& cluster,
                                                   const std::vector<graph::RunGraph>& graphs,
                                                   const PredictionOptions& options) {
  const auto zones = analysis::ZoneIndex::of(cluster, options.zone_label);
  const analysis::TransferPrices prices = analysis::measureTransferPrices(graphs, cluster, zones);
  auto input = replay::buildReplayInput(cluster, graphs,
                                        inputOptions(cluster, graphs, zones, prices, options));
  if (!input.ok()) {
    return input.error();
  }
  if (auto latency = replay::estimateSchedulerLatency(*input); !latency.ok()) {
    return latency.error();
  }
  if (auto stop = stopping()) {  // before the calibration's replays
    return makeError(*stop);
  }
  auto context = fromInput(*input, options);
  if (context.ok()) {
    context->transfer_prices_ = prices;
  }
  return context;
}

Result<PredictionContext> PredictionContext::fromInput(const replay::ReplayInput& input,
                                                       const PredictionOptions& options) {
  auto fit = replay::fitQueueOrder(input);
  if (!fit.ok()) {
    return fit.error();
  }
  PredictionContext context;
  context.options_ = options;
  context.options_.replays = std::max<std::uint32_t>(1, options.replays);
  context.profile_ = fit->profile;
  context.calibration_ = std::move(fit->calibration);
  for (std::uint32_t k = 0; k < context.options_.replays; ++k) {
    if (auto stop = stopping()) {
      return makeError(*stop);
    }
    context.inputs_.push_back(perturbRunTimes(input, k, options.run_time_spread));
    auto before = replay::replay(context.inputs_.back(), context.profile_);
    if (!before.ok()) {
      return before.error();
    }
    context.before_.push_back(measureReplay(context.inputs_.back(), *before));
  }
  context.gpu_capacity_ = gpusOf(input);
  return context;
}

bool reliablyHarmful(const Prediction& p) {
  const bool slower = p.replayed && p.affected_runs > 0 && p.makespan_seconds.change_low > 0;
  const bool gains = p.gpu_pod_pending_seconds.change_high < 0 ||
                     (p.watched_pods > 0 && p.watched_pending_seconds.change_high < 0) ||
                     p.gpu_allocation.change_low > 0;
  return slower && !gains;
}

Prediction PredictionContext::predict(const replay::ChangeSet& changes,
                                      const std::vector<std::string>& watched) const {
  Prediction none;
  replay::ReplayInput changed = inputs_.front();
  auto report = replay::applyChanges(changed, changes);
  if (!report.ok()) {
    none.not_replayed = report.error().describe();
    return none;
  }
  const replay::ReplayScope scope = replay::scopeOfChange(inputs_.front(), changed);
  std::vector<ReplayMeasures> after;
  for (std::size_t k = 0; k < inputs_.size(); ++k) {
    if (auto stop = stopping()) {
      none.not_replayed = *stop;
      return none;
    }
    auto measured = replayChanged(k, changed, scope);
    if (!measured.ok()) {
      none.not_replayed = measured.error().describe();
      return none;
    }
    after.push_back(std::move(*measured));
  }
  Prediction p = figures(inputs_.front(), Sides{before_, after}, watched, options_.runs_listed);
  p.matched = std::move(report->matched);
  p.hand_offs = handOffCoverage(changes);
  p.reach =
      scope.whole
          ? PredictionReach{true, changed.nodes.size(), changed.pods.size(), changed.runs.size()}
          : PredictionReach{false, scope.nodes.size(), scope.pods.size(), scope.runs.size()};
  return p;
}

HandOffCoverage PredictionContext::handOffCoverage(const replay::ChangeSet& changes) const {
  const auto edits = [&](const replay::ReplayPod& pod) {
    return std::any_of(changes.changes.begin(), changes.changes.end(), [&](const auto& c) {
      return std::visit(
          [&](const auto& change) {
            if constexpr (requires { change.pods.matches(pod); }) {
              return change.pods.matches(pod);
            } else {
              return false;
            }
          },
          c);
    });
  };
  HandOffCoverage coverage;
  for (const replay::ReplayPod& pod : inputs_.front().pods) {
    if (!pod.parents.empty() && edits(pod)) {
      ++coverage.tasks;
      coverage.charged += pod.observed_transfer_seconds.has_value() ? 1 : 0;
    }
  }
  return coverage;
}

Result<ReplayMeasures> PredictionContext::replayChanged(std::size_t k,
                                                        const replay::ReplayInput& changed,
                                                        const replay::ReplayScope& scope) const {
  const replay::ReplayInput& base = inputs_[k];
  if (scope.whole) {
    const replay::ReplayInput after = withRunTimesOf(changed, base, allPods(base));
    auto result = replay::replay(after, profile_);
    if (!result.ok()) {
      return result.error();
    }
    return measureReplay(after, *result);
  }
  if (scope.pods.empty()) {
    return before_[k];  // the changes alter nothing the replay reads
  }
  const replay::ReplayInput scoped_before = replay::restrictTo(base, scope);
  const replay::ReplayInput scoped_after =
      withRunTimesOf(replay::restrictTo(changed, scope), base, scope.pods);
  auto result_before = replay::replay(scoped_before, profile_);
  auto result_after = replay::replay(scoped_after, profile_);
  if (!result_before.ok() || !result_after.ok()) {
    return result_before.ok() ? result_after.error() : result_before.error();
  }
  const double gpu_share = gpu_capacity_ > 0 ? gpusOf(scoped_before) / gpu_capacity_ : 0;
  return withScopedChange(before_[k], scope, measureReplay(scoped_before, *result_before),
                          measureReplay(scoped_after, *result_after), gpu_share);
}

}  // namespace dagadvisor::prediction
