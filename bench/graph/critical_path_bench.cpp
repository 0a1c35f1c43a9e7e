#include <benchmark/benchmark.h>

#include "graph/critical_path.h"
#include "random_dag.h"

namespace {

using namespace dagadvisor;

constexpr std::uint32_t kTasks = 100000;
constexpr std::uint32_t kEdges = 1000000;

const bench::RandomDag& dag() {
  static const bench::RandomDag kDag = bench::randomDag(kTasks, kEdges);
  return kDag;
}

void BM_TaskGraphBuild1MEdges(benchmark::State& state) {
  for (auto _ : state) {
    graph::TaskGraph g(kTasks, dag().edges);
    benchmark::DoNotOptimize(g.topologicalOrder().data());
  }
  state.counters["edges"] = static_cast<double>(graph::TaskGraph(kTasks, dag().edges).edgeCount());
}
BENCHMARK(BM_TaskGraphBuild1MEdges)->Unit(benchmark::kMillisecond);

// Critical path plus slack of every task, on a graph built once (as in a cycle).
void BM_CriticalPathAndSlack1MEdges(benchmark::State& state) {
  const graph::TaskGraph g(kTasks, dag().edges);
  double length = 0;
  for (auto _ : state) {
    const auto path = graph::computeCriticalPath(g, dag().duration);
    length = path.length;
    benchmark::DoNotOptimize(path.slack.data());
  }
  state.counters["length"] = length;
}
BENCHMARK(BM_CriticalPathAndSlack1MEdges)->Unit(benchmark::kMillisecond);

}  // namespace
