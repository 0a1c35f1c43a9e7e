// The bundled default scenario (a snapshot recorded through a real Prometheus from the
// simulator): replayed without change, the runs that finished must take as long as they did.
#include <catch2/catch.hpp>
#include <cmath>

#include "calibration_print.h"
#include "config/config.h"
#include "graph/cluster_whatif.h"
#include "graph/run_graph.h"
#include "ingestion/cluster_fetch.h"
#include "model/adapters/adapter_registry.h"
#include "replay/calibration.h"
#include "replay/input_builder.h"
#include "replay/scheduler_latency.h"
#include "sources/snapshot/snapshot_source.h"

using namespace dagadvisor;

namespace {

struct DefaultWindow {
  std::unique_ptr<model::ClusterSnapshot> cluster;
  std::vector<model::WorkflowRun> runs;
  std::vector<graph::RunGraph> graphs;
};

DefaultWindow loadDefaultScenario() {
  const std::string dir = std::string(DAGADVISOR_SOURCE_DIR) + "/config/scenarios/default";
  auto source = sources::SnapshotSource::open(dir);
  REQUIRE(source.ok());
  config::Config config;
  ingestion::FetchStats stats;
  auto cluster =
      ingestion::fetchClusterSnapshot(**source, ingestion::QueryCatalog(config.sources.prometheus),
                                      (*source)->analysisTime(), stats);
  REQUIRE(cluster.ok());
  DefaultWindow w;
  w.cluster = std::make_unique<model::ClusterSnapshot>(std::move(*cluster));
  w.runs = model::buildRuns(*w.cluster, config.workflow_labels);
  w.graphs = graph::buildRunGraphs(w.runs, *w.cluster, graph::WhatIfTransfer::fromConfig(config));
  return w;
}

}  // namespace

TEST_CASE("an unchanged replay of the default scenario reproduces its finished runs' makespans") {
  const DefaultWindow w = loadDefaultScenario();
  auto input = replay::buildReplayInput(*w.cluster, w.graphs);
  REQUIRE(input.ok());
  REQUIRE(replay::estimateSchedulerLatency(*input).ok());
  auto fit = replay::fitQueueOrder(*input);
  REQUIRE(fit.ok());
  std::printf(
      "default scenario: queue order fitted: %s\n",
      fit->profile.queue_order == replay::QueueOrder::kArrival ? "arrival" : "queue timestamp");
  testing::printCalibration("default (snapshot)", fit->calibration);
  REQUIRE(fit->calibration.finished_runs > 0);
  CHECK(fit->calibration.median_error <= 0.10);
  // The GPU training pods, pending behind the hoarded GPU nodes, wait in the unchanged replay
  // what they waited (to the window's end for those still pending).
  CHECK(fit->calibration.gpu_pods == 15);
  CHECK(fit->calibration.observed_gpu_pod_wait > 600);
  CHECK(std::abs(fit->calibration.replayed_gpu_pod_wait - fit->calibration.observed_gpu_pod_wait) <=
        0.10 * fit->calibration.observed_gpu_pod_wait);
}

TEST_CASE("the default scenario's replay places every task pod it can and ends") {
  const DefaultWindow w = loadDefaultScenario();
  auto input = replay::buildReplayInput(*w.cluster, w.graphs);
  REQUIRE(input.ok());
  auto result = replay::replay(*input);
  REQUIRE(result.ok());
  std::size_t tasks = 0;
  std::size_t placed = 0;
  for (std::size_t i = 0; i < input->pods.size(); ++i) {
    if (input->pods[i].role == replay::PodRole::kTask) {
      ++tasks;
      placed += result->pods[i].node.has_value() ? 1 : 0;
    }
  }
  std::printf(
      "default scenario: %zu pods (%zu tasks, %zu placed), %zu nodes, %zu runs, %zu events, "
      "%zu attempts, %zu preemptions\n",
      input->pods.size(), tasks, placed, input->nodes.size(), input->runs.size(), result->events,
      result->attempts, result->preemptions);
  CHECK(tasks > 0);
  CHECK(placed > 0);
  CHECK(result->events >= tasks);
}
