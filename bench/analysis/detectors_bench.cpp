// All detectors together on a synthetic cluster of the `scale` size (SPEC §6: 5,000 nodes,
// 150,000 pods, 60,000 tasks in under 300 ms). Building the snapshot and the run graphs is
// setup, not measured: the benchmark times detection alone.
#include <benchmark/benchmark.h>

#include <deque>
#include <memory>

#include "advice/kind_list.h"
#include "analysis/detector_runner.h"
#include "support/builders.h"

namespace {

using namespace dagadvisor;

constexpr std::size_t kNodes = 5'000;
constexpr std::size_t kRuns = 2'000;
constexpr std::size_t kTasksPerRun = 30;  // 60,000 tasks
constexpr std::size_t kOtherPods = 90'000;

struct ScaleCluster {
  std::deque<model::WorkflowRun> runs;
  std::unique_ptr<model::ClusterSnapshot> cluster;
  std::vector<graph::RunGraph> graphs;
  config::Config config;
};

std::string nodeName(std::size_t i) {
  return "node-" + std::to_string(i);
}

// Tasks of a run: a chain with a side branch every third task; the last run-tenth still pend.
void addRun(std::size_t r, std::vector<model::Pod>& pods, std::deque<model::WorkflowRun>& runs) {
  model::WorkflowRun run;
  run.namespace_ = "etl";
  run.dag = "dag-" + std::to_string(r % 50);
  run.run = "run-" + std::to_string(r);
  run.engine = "labels";
  for (std::size_t t = 0; t < kTasksPerRun; ++t) {
    const bool pending = r % 10 == 0 && t > kTasksPerRun / 2;
    const double start = 100.0 * static_cast<double>(t);
    run.tasks.push_back({"t" + std::to_string(t), static_cast<model::PodId>(pods.size()), 1, {}});
    if (t > 0) {
      run.edges.push_back({static_cast<model::TaskIndex>(t % 3 == 0 ? t - 3 : t - 1),
                           static_cast<model::TaskIndex>(t)});
    }
    pods.push_back(testing::makePod("etl", run.run + "-" + run.tasks.back().id,
                                    pending ? "" : nodeName((r * 7 + t) % kNodes), 0.5, 1, 0,
                                    [&](model::Pod& p) {
                                      p.labels.set("dag-id", run.dag);
                                      p.created = 0;
                                      if (!pending) {
                                        p.scheduled = start;
                                        p.started = start;
                                        p.finished = start + 90;
                                        p.phase = model::PodPhase::kSucceeded;
                                      }
                                    }));
  }
  runs.push_back(std::move(run));
}

std::unique_ptr<ScaleCluster> makeScaleCluster() {
  auto scale = std::make_unique<ScaleCluster>();
  std::vector<model::Node> nodes;
  for (std::size_t i = 0; i < kNodes; ++i) {
    nodes.push_back(testing::makeNode(nodeName(i), 32, i % 3 == 0 ? 256 : 64, i % 10 == 0 ? 4 : 0));
  }
  std::vector<model::Pod> pods;
  for (std::size_t r = 0; r < kRuns; ++r) {
    addRun(r, pods, scale->runs);
  }
  for (std::size_t i = 0; i < kOtherPods; ++i) {
    const bool daemon = i < kNodes;
    pods.push_back(testing::makePod(
        "web", "svc-" + std::to_string(i), i % 100 == 99 ? "" : nodeName(i % kNodes), 1.5, 6,
        i % 500 == 0 ? 1 : 0,
        testing::ownedBy(daemon ? "DaemonSet" : "ReplicaSet",
                         daemon ? "agent" : "svc-" + std::to_string(i % 300) + "-abc")));
    pods.back().usage = model::ObservedUsage{0.2, 1.0 * testing::kGiB, 100, std::nullopt};
  }
  scale->cluster =
      std::make_unique<model::ClusterSnapshot>(10'000, std::move(nodes), std::move(pods));
  for (const model::WorkflowRun& run : scale->runs) {
    scale->graphs.push_back(graph::buildRunGraph(run, *scale->cluster));
  }
  return scale;
}

// Built once for every benchmark of the program: it takes longer than the detection itself.
const ScaleCluster& scaleCluster() {
  static const std::unique_ptr<ScaleCluster> scale = makeScaleCluster();
  return *scale;
}

void BM_AllDetectorsScale(benchmark::State& state) {
  const ScaleCluster* scale = &scaleCluster();
  const auto detectors = advice::allDetectors();
  analysis::DetectionResult result;
  for (auto _ : state) {
    // A new input each time: it caches the pending diagnosis, which a cycle makes once.
    const analysis::AnalysisInput input{*scale->cluster, scale->graphs, scale->config};
    result = analysis::runDetectors(detectors, input);
    benchmark::DoNotOptimize(result.findings.data());
  }
  state.counters["findings"] = static_cast<double>(result.findings.size());
  // Per-detector milliseconds of the last iteration: which one to optimise first.
  for (const analysis::DetectorRun& run : result.runs) {
    state.counters[run.name + "_ms"] = run.seconds * 1000;
  }
  state.SetLabel("5000 nodes, 150000 pods, 60000 tasks");
}
BENCHMARK(BM_AllDetectorsScale)->Unit(benchmark::kMillisecond)->Iterations(3);

// One detector alone, by its index in the registry: CPU time per detector, which the wall-clock
// counters above overstate on a busy machine.
void BM_OneDetectorScale(benchmark::State& state) {
  const ScaleCluster* scale = &scaleCluster();
  const auto detectors = advice::allDetectors();
  const auto& detector = *detectors.at(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) {
    // A new input each time: a detector alone pays for the pending diagnosis it reads.
    const analysis::AnalysisInput input{*scale->cluster, scale->graphs, scale->config};
    analysis::FindingSink sink;
    detector.analyze(input, sink);
    benchmark::DoNotOptimize(sink.findings().data());
  }
  state.SetLabel(std::string(detector.info().kind));
}
BENCHMARK(BM_OneDetectorScale)
    ->DenseRange(0, static_cast<int>(advice::allDetectors().size()) - 1)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3);

}  // namespace
