#include <benchmark/benchmark.h>

#include "graph/heft.h"
#include "random_dag.h"

namespace {

using namespace dagadvisor;

// The timed part of every HEFT benchmark; the makespan is reported so that runs can be compared.
void runHeft(benchmark::State& state, const graph::HeftProblem& problem) {
  double makespan = 0;
  for (auto _ : state) {
    auto schedule = graph::scheduleHeft(problem);
    makespan = schedule.ok() ? schedule->makespan : -1;
    benchmark::DoNotOptimize(makespan);
  }
  state.counters["makespan"] = makespan;
}

// 10,000 tasks with 4 edges each on average, 16 heterogeneous processors, uniform transfers.
void BM_Heft10kTasks16Procs(benchmark::State& state) {
  constexpr std::uint32_t kTasks = 10000;
  constexpr std::size_t kProcs = 16;
  const auto dag = bench::randomDag(kTasks, 4 * kTasks, 7);
  const graph::TaskGraph g(kTasks, dag.edges);
  std::uint64_t seed = 99;
  std::vector<double> cost(kTasks * kProcs);
  for (double& c : cost) {
    c = static_cast<double>(1 + bench::splitmix64(seed) % 50);
  }
  std::vector<double> weight(g.edgeCount());
  for (double& w : weight) {
    w = static_cast<double>(bench::splitmix64(seed) % 20);
  }
  const graph::HeftProblem problem{&g, kProcs, cost, graph::TransferCost::uniform(weight), {}, {}};
  runHeft(state, problem);
}
BENCHMARK(BM_Heft10kTasks16Procs)->Unit(benchmark::kMillisecond);

}  // namespace

namespace {

// The cluster what-if's worst case: 1,000 independent tasks on 4 shared nodes that each hold
// one task at a time (the slot search then scans every task placed on a node).
void BM_SharedNodesHeft1000Tasks(benchmark::State& state) {
  constexpr std::uint32_t kTasks = 1000;
  constexpr std::size_t kProcs = 4;
  const graph::TaskGraph g(kTasks, {});
  std::uint64_t seed = 5;
  std::vector<double> cost(kTasks * kProcs);
  for (double& c : cost) {
    c = static_cast<double>(1 + bench::splitmix64(seed) % 50);
  }
  const graph::HeftProblem problem{&g,
                                   kProcs,
                                   cost,
                                   {},
                                   std::vector<model::ResourceVector>(kTasks, {1000, 0, 0}),
                                   std::vector<model::ResourceVector>(kProcs, {1000, 0, 0})};
  runHeft(state, problem);
}
BENCHMARK(BM_SharedNodesHeft1000Tasks)->Unit(benchmark::kMillisecond);

}  // namespace
