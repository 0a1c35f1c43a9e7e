// What was planted and what happened: the ground truth used by tests, and per-run figures.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "simulation.h"

namespace dagadvisor::sim {

/// Headline figures of one simulated policy.
struct Figures {
  double meanMakespanHours = 0;
  double maxMakespanHours = 0;
  double gpuUtilisationPct = 0;  // DCGM-weighted GPU busy time / GPU time over the pipeline span
  double gpuAllocationPct = 0;   // GPUs held by running pods / GPU time over the pipeline span
  double meanQueueSeconds = 0;   // created -> scheduled of task pods
  int runsFinished = 0;
  int runs = 0;
  double gpuPodPendingSeconds = 0;  // created -> scheduled (or the end), summed over GPU task pods
  int gpuPods = 0;                  // GPU-requesting task pods
  double windowGpuAllocationPct = 0;  // GPU-seconds bound to pods / GPU-seconds in the window
  int preemptions = 0;
};

Figures computeFigures(const History& history);

/// The same seeds before and after a change: figures of both, the runs whose makespan changed
/// (the affected runs, matched by run name) and their mean makespans, and what was applied.
nlohmann::json comparison(const History& before, const History& after);

/// What the daemon's replay of the window [from, to] (seconds after the start) measures, on both
/// histories: the runs with a task created in it, their makespan over those tasks, the mean wait
/// of the GPU pods created in it and the GPU allocation within it (docs/whatif.md).
nlohmann::json windowComparison(const History& before, const History& after, double from,
                                double to);

/// The paired change of windowComparison's figures over several draws of the same comparison
/// (the scheduler's tie-breaks): count, and mean, min and max of each change.
nlohmann::json changeOverDraws(const std::vector<nlohmann::json>& windowComparisons);

/// The ground truth document (see config/scenarios/README.md for the format).
nlohmann::json groundTruth(const History& history);

/// Per-run and overall summary figures.
nlohmann::json summary(const History& history);

/// Time (seconds after start, on the output grid) at which the planted problem is most visible.
double suggestedAnalysisTime(const History& history);

/// GPU nodes held by non-GPU pods while GPU pods pend, at time t.
nlohmann::json hoardedGpuNodes(const History& history, double t);

/// Task ids on the longest path by observed run times, and its length in seconds.
std::pair<std::vector<int>, double> observedCriticalPath(const History& history, const Run& run);

}  // namespace dagadvisor::sim
