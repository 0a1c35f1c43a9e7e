#include "prediction/replay_measures.h"

#include <algorithm>

namespace dagadvisor::prediction {
namespace {

using replay::kForever;
using replay::PodOutcome;

UnixSeconds replayEnd(const replay::ReplayInput& input, const replay::ReplayResult& result) {
  UnixSeconds end = input.window_end;
  for (const PodOutcome& o : result.pods) {
    if (o.done()) {
      end = std::max(end, o.finished);
    }
  }
  return end;
}

double criticalWait(const replay::ReplayInput& input, const replay::ReplayResult& result,
                    const replay::ReplayRun& run, const std::vector<double>& wait) {
  const auto finish = [&](replay::ReplayPodId id) {
    return result.pods[id].done() ? result.pods[id].finished : -kForever;
  };
  const auto latest = [&](const std::vector<replay::ReplayPodId>& ids) {
    return *std::max_element(ids.begin(), ids.end(),
                             [&](auto a, auto b) { return finish(a) < finish(b); });
  };
  if (run.tasks.empty()) {
    return 0;
  }
  double total = 0;
  for (replay::ReplayPodId id = latest(run.tasks);;) {
    total += wait[id];
    const auto& parents = input.pods[id].parents;
    if (parents.empty()) {
      return total;
    }
    id = latest(parents);
  }
}

double gpuAllocation(const replay::ReplayInput& input, const replay::ReplayResult& result,
                     UnixSeconds end) {
  double capacity = 0;
  for (const replay::ReplayNode& node : input.nodes) {
    capacity += static_cast<double>(node.allocatable.gpus);
  }
  const double window = input.window_end - input.window_start;
  if (capacity <= 0 || window <= 0) {
    return 0;
  }
  double held = 0;
  for (std::size_t i = 0; i < input.pods.size(); ++i) {
    const PodOutcome& o = result.pods[i];
    if (input.pods[i].requests.gpus <= 0 || !o.node || o.bound >= kForever) {
      continue;
    }
    const double from = std::max(o.bound, input.window_start);
    const double to = std::min(o.done() ? o.finished : end, input.window_end);
    held += static_cast<double>(input.pods[i].requests.gpus) * std::max(0.0, to - from);
  }
  return held / (capacity * window);
}

}  // namespace

ReplayMeasures measureReplay(const replay::ReplayInput& input, const replay::ReplayResult& result) {
  ReplayMeasures m;
  const UnixSeconds end = replayEnd(input, result);
  m.pod_wait.assign(input.pods.size(), 0);
  m.pod_window_wait.assign(input.pods.size(), 0);
  for (std::size_t i = 0; i < input.pods.size(); ++i) {
    const PodOutcome& o = result.pods[i];
    if (input.pods[i].role != replay::PodRole::kFixed && o.arrival < kForever) {
      m.pod_wait[i] = o.waitUntil(end);
      m.pod_window_wait[i] = o.waitUntil(input.window_end);
    }
  }
  for (std::size_t r = 0; r < input.runs.size(); ++r) {
    m.run_makespan.push_back(result.runs[r].makespan);
    m.run_complete.push_back(result.runs[r].complete ? 1 : 0);
    m.run_critical_wait.push_back(criticalWait(input, result, input.runs[r], m.pod_wait));
  }
  m.gpu_allocation = gpuAllocation(input, result, end);
  return m;
}

ReplayMeasures withScopedChange(const ReplayMeasures& whole, const replay::ReplayScope& scope,
                                const ReplayMeasures& scoped_before,
                                const ReplayMeasures& scoped_after, double gpu_share) {
  ReplayMeasures out = whole;
  for (std::size_t i = 0; i < scope.pods.size(); ++i) {
    out.pod_wait[scope.pods[i]] += scoped_after.pod_wait[i] - scoped_before.pod_wait[i];
    out.pod_window_wait[scope.pods[i]] +=
        scoped_after.pod_window_wait[i] - scoped_before.pod_window_wait[i];
  }
  for (std::size_t i = 0; i < scope.runs.size(); ++i) {
    const std::size_t r = scope.runs[i];
    out.run_makespan[r] += scoped_after.run_makespan[i] - scoped_before.run_makespan[i];
    out.run_critical_wait[r] +=
        scoped_after.run_critical_wait[i] - scoped_before.run_critical_wait[i];
    out.run_complete[r] = scoped_after.run_complete[i];
  }
  out.gpu_allocation += (scoped_after.gpu_allocation - scoped_before.gpu_allocation) * gpu_share;
  return out;
}

}  // namespace dagadvisor::prediction
