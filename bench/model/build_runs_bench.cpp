#include <benchmark/benchmark.h>

#include <string>

#include "model/adapters/adapter_registry.h"
#include "support/builders.h"

namespace {

using namespace dagadvisor;

constexpr int kRuns = 3000;        // the simulator's `scale` scenario: 3,000 runs of 20 tasks,
constexpr int kTasksPerRun = 20;   // 750 per engine,
constexpr int kOtherPods = 90000;  // next to DaemonSet and service pods that belong to no run

// Task k of run r, labelled as its engine labels it; a chain with fan-out so that inference has
// parents to find.
model::Pod taskPod(int r, int k) {
  const std::string run = "run-" + std::to_string(r);
  const std::string task = "t" + std::to_string(k);
  const double created = r * 10.0 + k * 100.0;
  return testing::makePod(
      "ns", run + "-" + task, "node-" + std::to_string((r * 7 + k) % 5000), 1, 1, 0,
      [&](model::Pod& p) {
        switch (r % 4) {
          case 0:
            p.labels.set("dag-id", "seed");
            p.labels.set("dag-run", run);
            p.labels.set("task-id", task);
            if (k > 0) {
              p.annotations.set("workflow.dependencies", "t" + std::to_string(k - 1));
            }
            break;
          case 1:
            p.labels.set("workflows.argoproj.io/workflow", run);
            p.annotations.set("workflows.argoproj.io/node-name", run + "." + task);
            break;
          case 2:
            p.labels.set("dag_id", "etl");
            p.labels.set("task_id", task);
            p.labels.set("run_id", run);
            p.labels.set("try_number", "1");
            p.annotations.set("run_id", run);
            break;
          default:
            p.labels.set("tekton.dev/pipelineRun", run);
            p.labels.set("tekton.dev/pipelineTask", task);
            p.labels.set("tekton.dev/pipeline", "build");
        }
        p.created = created;
        p.started = created + 5;
        p.finished = created + 95;
        p.phase = model::PodPhase::kSucceeded;
      });
}

model::ClusterSnapshot scaleCluster() {
  std::vector<model::Pod> pods;
  pods.reserve(kRuns * kTasksPerRun + kOtherPods);
  for (int r = 0; r < kRuns; ++r) {
    for (int k = 0; k < kTasksPerRun; ++k) {
      pods.push_back(taskPod(r, k));
    }
  }
  for (int i = 0; i < kOtherPods; ++i) {
    pods.push_back(testing::makePod("online", "web-" + std::to_string(i), "node-1", 1, 1, 0,
                                    [](model::Pod& p) { p.labels.set("app", "web"); }));
  }
  return model::ClusterSnapshot(1e6, {testing::makeNode("node-1", 64, 256)}, std::move(pods));
}

void BM_BuildRuns60kTasks(benchmark::State& state) {
  static const model::ClusterSnapshot cluster = scaleCluster();
  const config::WorkflowLabels keys;
  std::size_t runs = 0;
  std::size_t edges = 0;
  for (auto _ : state) {
    const auto built = model::buildRuns(cluster, keys);
    runs = built.size();
    edges = 0;
    for (const auto& run : built) {
      edges += run.edges.size();
    }
    benchmark::DoNotOptimize(built.data());
  }
  state.counters["runs"] = static_cast<double>(runs);
  state.counters["edges"] = static_cast<double>(edges);
}
BENCHMARK(BM_BuildRuns60kTasks)->Unit(benchmark::kMillisecond);

}  // namespace
