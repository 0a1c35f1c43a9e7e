// What predictions cost at the reference size (5,000 nodes, 150,000 pods in the window): a
// synthetic window of nine node pools (eight CPU pools the tasks select by node type, one
// tainted GPU pool only GPU tasks tolerate) and 15,000 ten-task runs plus services, every pod
// observed on a node of its pool. Measured: preparing the context once per cycle (calibration
// and the perturbed baselines), one prediction of a change to the GPU pool (replayed over the
// reach of the change), and one of a change every pod feels (replayed whole).
#include <benchmark/benchmark.h>

#include <string>

#include "prediction/prediction.h"

namespace {

using namespace dagadvisor;

constexpr int kCpuPools = 8;
constexpr int kCpuNodesPerPool = 600;
constexpr int kGpuNodes = 200;
constexpr int kRuns = 15000;
constexpr int kTasksPerRun = 10;
constexpr int kServices = 150;  // per CPU pool
constexpr double kWindow = 6 * 3600;
constexpr std::int64_t kGiB = 1024LL * 1024 * 1024;
const model::Taint kGpuTaint{"nvidia.com/gpu", "present", "NoSchedule"};

replay::ReplayNode node(const std::string& name, const std::string& type, std::int64_t gpus) {
  replay::ReplayNode n;
  n.name = name;
  n.allocatable = {gpus > 0 ? 96000 : 32000, (gpus > 0 ? 768 : 128) * kGiB, gpus};
  n.labels.set("node-type", type);
  n.labels.set("kubernetes.io/hostname", name);
  if (gpus > 0) {
    n.taints.push_back(kGpuTaint);
  }
  return n;
}

void addNodes(replay::ReplayInput& in) {
  for (int pool = 0; pool < kCpuPools; ++pool) {
    for (int i = 0; i < kCpuNodesPerPool; ++i) {
      in.nodes.push_back(node("cpu-" + std::to_string(pool) + "-" + std::to_string(i),
                              "cpu-" + std::to_string(pool), 0));
    }
  }
  for (int i = 0; i < kGpuNodes; ++i) {
    in.nodes.push_back(node("gpu-" + std::to_string(i), "gpu", 8));
  }
}

replay::ReplayNodeId nodeOf(int pool, int k) {
  return pool < kCpuPools
             ? static_cast<replay::ReplayNodeId>(pool * kCpuNodesPerPool + k % kCpuNodesPerPool)
             : static_cast<replay::ReplayNodeId>(kCpuPools * kCpuNodesPerPool + k % kGpuNodes);
}

// Run r: a chain of ten tasks in pool r % 9 (the ninth is the GPU pool), arriving over the
// window, each task 5 to 14 minutes.
void addRun(replay::ReplayInput& in, int r) {
  const int pool = r % (kCpuPools + 1);
  const bool gpu = pool == kCpuPools;
  replay::ReplayRun run;
  run.id = "team/dag-" + std::to_string(r % 300) + "/run-" + std::to_string(r);
  run.observed_finished = true;
  const auto run_id = static_cast<replay::ReplayRunId>(in.runs.size());
  for (int t = 0; t < kTasksPerRun; ++t) {
    replay::ReplayPod p;
    p.namespace_ = "team";
    p.name = "run-" + std::to_string(r) + "-task-" + std::to_string(t);
    p.role = replay::PodRole::kTask;
    p.owner_kind = "Workflow";
    p.owner_name = "run-" + std::to_string(r);
    p.requests = {gpu ? 8000 : 2000, (gpu ? 64 : 8) * kGiB, gpu ? 4 : 0};
    if (gpu) {
      p.tolerations.push_back({"nvidia.com/gpu", replay::TolerationOp::kExists, "", "NoSchedule"});
    }
    p.node_selector.emplace_back("node-type", gpu ? "gpu" : "cpu-" + std::to_string(pool));
    p.arrival = kWindow * (r % 997) / 997.0;
    p.run_seconds = 300 + 60 * ((r * 7 + t * 3) % 10);
    p.run = run_id;
    p.observed_node = nodeOf(pool, r * kTasksPerRun + t);
    const auto id = static_cast<replay::ReplayPodId>(in.pods.size());
    if (t > 0) {
      p.parents.push_back(id - 1);
      in.pods[id - 1].children.push_back(id);
    }
    run.tasks.push_back(id);
    in.pods.push_back(std::move(p));
  }
  in.runs.push_back(std::move(run));
}

void addServices(replay::ReplayInput& in) {
  for (int pool = 0; pool < kCpuPools; ++pool) {
    for (int i = 0; i < kServices; ++i) {
      replay::ReplayPod p;
      p.namespace_ = "online";
      p.name = "api-" + std::to_string(pool) + "-" + std::to_string(i);
      p.role = replay::PodRole::kFixed;
      p.owner_kind = "ReplicaSet";
      p.owner_name = "api-" + std::to_string(pool);
      p.requests = {4000, 16 * kGiB, 0};
      p.observed_node = nodeOf(pool, i * 4);
      p.observed_bound = -3600;
      in.pods.push_back(std::move(p));
    }
  }
}

const replay::ReplayInput& referenceWindow() {
  static const replay::ReplayInput kInput = [] {
    replay::ReplayInput in;
    in.window_end = kWindow;
    addNodes(in);
    for (int r = 0; r < kRuns; ++r) {
      addRun(in, r);
    }
    addServices(in);
    return in;
  }();
  return kInput;
}

const prediction::PredictionContext& referenceContext() {
  static const prediction::PredictionContext kContext =
      std::move(*prediction::PredictionContext::fromInput(referenceWindow()));
  return kContext;
}

replay::ChangeSet priorityFor(replay::PodMatch pods) {
  return {{replay::SetPriority{std::move(pods), "dag-critical", 1000, false}}};
}

void BM_PredictionContextReference(benchmark::State& state) {
  for (auto _ : state) {
    auto context = prediction::PredictionContext::fromInput(referenceWindow());
    benchmark::DoNotOptimize(context.ok());
  }
  state.counters["pods"] = static_cast<double>(referenceWindow().pods.size());
  state.counters["nodes"] = static_cast<double>(referenceWindow().nodes.size());
}
BENCHMARK(BM_PredictionContextReference)->Unit(benchmark::kSecond)->Iterations(1);

void predictOnce(benchmark::State& state, const replay::ChangeSet& changes) {
  const prediction::PredictionContext& context = referenceContext();
  prediction::Prediction p;
  for (auto _ : state) {
    p = context.predict(changes);
    benchmark::DoNotOptimize(p.affected_runs);
  }
  state.counters["reach_pods"] = static_cast<double>(p.reach.pods);
  state.counters["reach_nodes"] = static_cast<double>(p.reach.nodes);
  state.counters["affected_runs"] = static_cast<double>(p.affected_runs);
}

void BM_PredictGpuPoolChange(benchmark::State& state) {
  replay::PodMatch gpu_pods;
  gpu_pods.requesting_gpus = true;
  predictOnce(state, priorityFor(gpu_pods));
}
BENCHMARK(BM_PredictGpuPoolChange)->Unit(benchmark::kMillisecond);

void BM_PredictChangeEveryPodFeels(benchmark::State& state) {
  replay::PodMatch every_task;
  every_task.owner_kind = "Workflow";
  predictOnce(state, priorityFor(every_task));
}
BENCHMARK(BM_PredictChangeEveryPodFeels)->Unit(benchmark::kMillisecond);

}  // namespace
