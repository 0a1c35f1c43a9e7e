// The replay of the bundled default scenario's window (config/scenarios/default: 22 nodes, 514
// pods, 88 runs): building its input, one replay, and what the daemon runs before predicting
// (the scheduler's delay measured and the queue order fitted: three replays). Loading the
// snapshot and building the run graphs is setup, not measured.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <memory>

#include "config/config.h"
#include "graph/cluster_whatif.h"
#include "graph/run_graph.h"
#include "ingestion/cluster_fetch.h"
#include "model/adapters/adapter_registry.h"
#include "replay/calibration.h"
#include "replay/input_builder.h"
#include "replay/replay.h"
#include "replay/scheduler_latency.h"
#include "sources/snapshot/snapshot_source.h"

namespace {

using namespace dagadvisor;

struct Window {
  std::unique_ptr<model::ClusterSnapshot> cluster;
  std::vector<model::WorkflowRun> runs;
  std::vector<graph::RunGraph> graphs;
  replay::ReplayInput input;
};

const Window& defaultWindow() {
  static const Window kWindow = [] {
    Window w;
    auto source = sources::SnapshotSource::open(std::string(DAGADVISOR_SOURCE_DIR) +
                                                "/config/scenarios/default");
    if (!source.ok()) {
      std::fprintf(stderr, "%s\n", source.error().describe().c_str());
      std::abort();
    }
    config::Config config;
    ingestion::FetchStats stats;
    auto cluster = ingestion::fetchClusterSnapshot(
        **source, ingestion::QueryCatalog(config.sources.prometheus), (*source)->analysisTime(),
        stats);
    if (!cluster.ok()) {
      std::abort();
    }
    w.cluster = std::make_unique<model::ClusterSnapshot>(std::move(*cluster));
    w.runs = model::buildRuns(*w.cluster, config.workflow_labels);
    w.graphs = graph::buildRunGraphs(w.runs, *w.cluster, graph::WhatIfTransfer{});
    w.input = std::move(*replay::buildReplayInput(*w.cluster, w.graphs));
    return w;
  }();
  return kWindow;
}

void BM_ReplayInputDefaultScenario(benchmark::State& state) {
  const Window& w = defaultWindow();
  for (auto _ : state) {
    auto input = replay::buildReplayInput(*w.cluster, w.graphs);
    benchmark::DoNotOptimize(input->pods.data());
  }
  state.counters["pods"] = static_cast<double>(w.input.pods.size());
}
BENCHMARK(BM_ReplayInputDefaultScenario)->Unit(benchmark::kMillisecond);

// One replay; `scored` places every pod by the emulated scores (the worst case: every attempt
// filters and scores every node) instead of sending it back to its observed node.
void replayOnce(benchmark::State& state, bool scored) {
  const Window& w = defaultWindow();
  replay::SchedulerProfile profile;
  profile.prefer_observed_node = !scored;
  std::size_t events = 0;
  for (auto _ : state) {
    auto result = replay::replay(w.input, profile);
    events = result->events;
    benchmark::DoNotOptimize(result->pods.data());
  }
  state.counters["events"] = static_cast<double>(events);
}
void BM_ReplayDefaultScenario(benchmark::State& state) {
  replayOnce(state, false);
}
void BM_ReplayDefaultScenarioScored(benchmark::State& state) {
  replayOnce(state, true);
}
BENCHMARK(BM_ReplayDefaultScenario)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ReplayDefaultScenarioScored)->Unit(benchmark::kMillisecond);

// Input, scheduler delay, queue order fitted: everything before the first prediction.
void BM_ReplayCalibrationDefaultScenario(benchmark::State& state) {
  const Window& w = defaultWindow();
  double median = 0;
  for (auto _ : state) {
    auto input = replay::buildReplayInput(*w.cluster, w.graphs);
    (void)replay::estimateSchedulerLatency(*input);
    auto fit = replay::fitQueueOrder(*input);
    median = fit->calibration.median_error;
    benchmark::DoNotOptimize(fit->calibration.runs.data());
  }
  state.counters["median_error"] = median;
}
BENCHMARK(BM_ReplayCalibrationDefaultScenario)->Unit(benchmark::kMillisecond);

}  // namespace
