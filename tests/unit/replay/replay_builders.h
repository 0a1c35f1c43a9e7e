#pragma once

#include <string>
#include <utility>
#include <vector>

#include "replay/replay_input.h"
#include "support/builders.h"

// Hand-made replay inputs: nodes and pods with only what a test is about set.
namespace dagadvisor::testing {

inline replay::ReplayNode replayNode(const std::string& name, double cores, double mem_gib,
                                     std::int64_t gpus = 0) {
  replay::ReplayNode n;
  n.name = name;
  n.allocatable = {static_cast<std::int64_t>(cores * 1000),
                   static_cast<std::int64_t>(mem_gib * kGiB), gpus};
  return n;
}

/// A standalone pod arriving at `arrival` that runs `run_seconds` once started.
inline replay::ReplayPod replayPod(const std::string& name, double cores, double mem_gib,
                                   UnixSeconds arrival, double run_seconds, std::int64_t gpus = 0) {
  replay::ReplayPod p;
  p.namespace_ = "ns";
  p.name = name;
  p.requests = {static_cast<std::int64_t>(cores * 1000), static_cast<std::int64_t>(mem_gib * kGiB),
                gpus};
  p.arrival = arrival;
  p.run_seconds = run_seconds;
  return p;
}

/// Adds a run of `pods` (their parents by position in `pods`) to `in`.
inline void addReplayRun(replay::ReplayInput& in, const std::string& id,
                         std::vector<replay::ReplayPod> pods,
                         const std::vector<std::pair<std::size_t, std::size_t>>& edges) {
  const auto first = static_cast<replay::ReplayPodId>(in.pods.size());
  const auto run = static_cast<replay::ReplayRunId>(in.runs.size());
  replay::ReplayRun r;
  r.id = id;
  r.observed_finished = true;
  for (replay::ReplayPod& p : pods) {
    p.role = replay::PodRole::kTask;
    p.run = run;
    r.tasks.push_back(static_cast<replay::ReplayPodId>(in.pods.size()));
    in.pods.push_back(std::move(p));
  }
  for (const auto& [parent, child] : edges) {
    in.pods[first + child].parents.push_back(first + static_cast<replay::ReplayPodId>(parent));
    in.pods[first + parent].children.push_back(first + static_cast<replay::ReplayPodId>(child));
  }
  in.runs.push_back(std::move(r));
}

}  // namespace dagadvisor::testing
