#include <algorithm>
#include <map>
#include <tuple>

#include "report.h"
#include "scheduler.h"
#include "sim_test_support.h"

using namespace dagadvisor::sim;
using namespace dagadvisor::sim::test;

namespace {

double freedAt(const Pod& p) {
  return std::min(p.finished, p.deleted);
}

// Sweeps each node's bind/release events in time order and fails if any moment holds more
// than the node's allocatable.
void requireNoOvercommit(const History& h) {
  std::vector<std::vector<std::tuple<double, int, const Pod*>>> events(h.nodes.size());
  for (const auto& p : h.pods) {
    if (p.scheduled == kNever) {
      continue;
    }
    REQUIRE(p.node >= 0);
    events[static_cast<std::size_t>(p.node)].emplace_back(p.scheduled, 1, &p);
    if (freedAt(p) != kNever) {
      events[static_cast<std::size_t>(p.node)].emplace_back(freedAt(p), 0, &p);  // releases first
    }
  }
  for (std::size_t n = 0; n < h.nodes.size(); ++n) {
    auto& ev = events[n];
    std::sort(ev.begin(), ev.end(), [](const auto& a, const auto& b) {
      return std::get<0>(a) != std::get<0>(b) ? std::get<0>(a) < std::get<0>(b)
                                              : std::get<1>(a) < std::get<1>(b);
    });
    double cpu = 0;
    double memory = 0;
    int gpu = 0;
    int pods = 0;
    const Resources& a = h.nodes[n].allocatable;
    for (const auto& [t, kind, p] : ev) {
      double sign = kind == 1 ? 1 : -1;
      cpu += sign * p->request.cpu;
      memory += sign * p->request.memory;
      gpu += (kind == 1 ? 1 : -1) * p->request.gpu;
      pods += kind == 1 ? 1 : -1;
      INFO(h.nodes[n].name << " at t=" << t);
      REQUIRE(cpu <= a.cpu + 1e-6);
      REQUIRE(memory <= a.memory + 1e-3);
      REQUIRE(gpu <= a.gpu);
      REQUIRE(pods <= a.pods);
    }
  }
}

void requireParentsFirst(const History& h) {
  for (const auto& r : h.runs) {
    const auto& tasks = h.scenario->workflows[static_cast<std::size_t>(r.workflow)].tasks;
    for (std::size_t i = 0; i < tasks.size(); ++i) {
      int child = r.taskPods[i];
      if (child < 0) {
        continue;
      }
      const Pod& c = h.pods[static_cast<std::size_t>(child)];
      for (const auto& parentId : tasks[i].parents) {
        auto it = std::find_if(tasks.begin(), tasks.end(),
                               [&](const TaskSpec& t) { return t.id == parentId; });
        int parent = r.taskPods[static_cast<std::size_t>(it - tasks.begin())];
        REQUIRE(parent >= 0);
        const Pod& p = h.pods[static_cast<std::size_t>(parent)];
        INFO(r.name << ": " << tasks[i].id << " after " << parentId);
        REQUIRE(p.finished != kNever);
        REQUIRE(c.created >= p.finished);
        REQUIRE(c.started >= p.finished);
      }
    }
  }
}

// No GPU device is handed to two pods whose lifetimes overlap.
void requireExclusiveGpus(const History& h) {
  std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> byDevice;
  for (const auto& p : h.pods) {
    REQUIRE(static_cast<int>(p.gpus.size()) == (p.scheduled == kNever ? 0 : p.request.gpu));
    for (int g : p.gpus) {
      byDevice[{p.node, g}].emplace_back(p.scheduled, freedAt(p));
    }
  }
  for (auto& [device, spans] : byDevice) {
    std::sort(spans.begin(), spans.end());
    for (std::size_t i = 1; i < spans.size(); ++i) {
      REQUIRE(spans[i].first >= spans[i - 1].second);
    }
  }
}

}  // namespace

TEST_CASE("no node is ever over-committed", "[simulator][invariants]") {
  for (const char* name : {"seed", "gpu-hoarding", "burst-shortfall", "dag-stacking"}) {
    for (Policy policy : {Policy::kBaseline, Policy::kRemedied}) {
      INFO(name << " " << policyName(policy));
      Scenario s = loadShipped(name);
      History h = simulate(s, policy);
      requireNoOvercommit(h);
      requireExclusiveGpus(h);
    }
  }
}

TEST_CASE("tasks never start before their parents finish", "[simulator][invariants]") {
  for (const char* name : {"seed", "split-dependencies", "dag-stacking", "mixed-online"}) {
    for (Policy policy : {Policy::kBaseline, Policy::kRemedied}) {
      INFO(name << " " << policyName(policy));
      Scenario s = loadShipped(name);
      requireParentsFirst(simulate(s, policy));
    }
  }
}

TEST_CASE("each pod's timeline is ordered", "[simulator][invariants]") {
  Scenario s = loadShipped("seed");
  History h = simulate(s, Policy::kBaseline);
  for (const auto& p : h.pods) {
    INFO(p.name);
    CHECK(p.created <= p.scheduled);
    CHECK(p.scheduled <= p.started);
    CHECK(p.started <= p.finished);
    CHECK(p.finished <= p.deleted);
    if (p.unschedulableSince != kNever && p.scheduled != kNever) {
      CHECK(p.unschedulableSince <= p.scheduled);
      CHECK(p.attempts >= 2);
    }
  }
}

TEST_CASE("the remedies keep non-GPU pods off GPU nodes", "[simulator][policy]") {
  Scenario s = loadShipped("seed");
  History h = simulate(s, Policy::kRemedied);
  for (const auto& p : h.pods) {
    if (p.node < 0 || p.kind == PodKind::kDaemonSet) {
      continue;
    }
    const Node& n = h.nodes[static_cast<std::size_t>(p.node)];
    INFO(p.name << " on " << n.name);
    CHECK((n.capacity.gpu == 0 || p.request.gpu > 0));
  }
}

TEST_CASE("the baseline lets non-GPU pods onto GPU nodes in the seed story",
          "[simulator][policy]") {
  Scenario s = loadShipped("seed");
  History h = simulate(s, Policy::kBaseline);
  int nonGpuOnGpuNodes = 0;
  for (const auto& p : h.pods) {
    if (p.node >= 0 && p.kind != PodKind::kDaemonSet && p.request.gpu == 0 &&
        h.nodes[static_cast<std::size_t>(p.node)].capacity.gpu > 0) {
      ++nonGpuOnGpuNodes;
    }
  }
  CHECK(nonGpuOnGpuNodes > 10);
}

TEST_CASE("the seed's remedies shorten the pipeline and raise GPU utilisation",
          "[simulator][policy]") {
  Scenario s = loadShipped("seed");
  Figures before = computeFigures(simulate(s, Policy::kBaseline));
  Figures after = computeFigures(simulate(s, Policy::kRemedied));
  CHECK(before.runsFinished == before.runs);
  CHECK(after.runsFinished == after.runs);
  CHECK(after.meanMakespanHours < 0.85 * before.meanMakespanHours);
  CHECK(after.gpuUtilisationPct > 1.2 * before.gpuUtilisationPct);
}

TEST_CASE("the simulation is deterministic for a seed", "[simulator][determinism]") {
  Scenario s = loadShipped("gpu-hoarding");
  std::string first = renderOpenMetrics(simulate(s, Policy::kBaseline));
  std::string second = renderOpenMetrics(simulate(s, Policy::kBaseline));
  CHECK(first == second);
  CHECK(groundTruth(simulate(s, Policy::kBaseline)).dump() ==
        groundTruth(simulate(s, Policy::kBaseline)).dump());
  s.seed += 1;
  CHECK(renderOpenMetrics(simulate(s, Policy::kBaseline)) != first);
}

// `serve` moves t = 0 so that the window starts now; the story must not depend on the minute the
// server was started (run ids carrying the time used to re-key every pod's draws).
TEST_CASE("moving the start keeps the story", "[simulator][determinism]") {
  Scenario s = loadShipped("seed");
  History before = simulate(s, Policy::kBaseline);
  s.start += 86400 * 3 + 61;
  History after = simulate(s, Policy::kBaseline);
  REQUIRE(before.pods.size() == after.pods.size());
  for (std::size_t i = 0; i < before.pods.size(); ++i) {
    INFO(before.pods[i].name);
    CHECK(before.pods[i].uid == after.pods[i].uid);
    CHECK(before.pods[i].name == after.pods[i].name);
    CHECK(before.pods[i].node == after.pods[i].node);
    CHECK(before.pods[i].scheduled == after.pods[i].scheduled);
    CHECK(before.pods[i].finished == after.pods[i].finished);
  }
  REQUIRE(before.runs.size() == after.runs.size());
  CHECK(before.runs.front().name != after.runs.front().name);  // the id still tells the time
}

namespace {

// A two-hour scenario of `workflows` (YAML list items) on one node with room for everything.
ScenarioOrError onOneBigNode(const std::string& name, const std::string& workflows) {
  return loadText("name: " + name +
                  "\nzones: [z]\nnode_pools: [{name: big, count: 1, cpu: 64, memory: 256Gi}]\n"
                  "workflows:" +
                  workflows + "duration: 7200\n");
}

}  // namespace

TEST_CASE("the critical path follows observed run times", "[simulator][report]") {
  auto loaded = onOneBigNode("diamond", R"(
  - name: w
    tasks:
      - {id: start, cpu: "1", memory: 1Gi, runtime: 100, runtime_sigma: 0}
      - {id: long, parents: [start], cpu: "1", memory: 1Gi, runtime: 1000, runtime_sigma: 0}
      - {id: short, parents: [start], cpu: "1", memory: 1Gi, runtime: 200, runtime_sigma: 0}
      - {id: end, parents: [long, short], cpu: "1", memory: 1Gi, runtime: 100, runtime_sigma: 0}
)");
  INFO(loaded.error);
  REQUIRE(loaded.scenario);
  History h = simulate(*loaded.scenario, Policy::kBaseline);
  REQUIRE(h.runs.size() == 1);
  auto [path, length] = observedCriticalPath(h, h.runs[0]);
  std::vector<std::string> ids;
  for (int i : path) {
    ids.push_back(loaded.scenario->workflows[0].tasks[static_cast<std::size_t>(i)].id);
  }
  CHECK(ids == std::vector<std::string>{"start", "long", "end"});
  // Whole-second timestamps may shave up to a second off each of the three tasks.
  CHECK(length >= 1197);
  CHECK(length <= 1203);
}

TEST_CASE("the filter honours taints, node types and requests", "[simulator][scheduler]") {
  Node gpu;
  gpu.name = "g";
  gpu.nodeType = "gpu";
  gpu.labels = {{"node-type", "gpu"}};
  gpu.allocatable = Resources{8, 32e9, 2, 10};
  gpu.taints = {{"nvidia.com/gpu", "present", "NoSchedule"}};
  Pod cpuPod;
  cpuPod.request = Resources{1, 1e9, 0, 1};
  CHECK_FALSE(podFits(cpuPod, gpu));
  Pod gpuPod = cpuPod;
  gpuPod.request.gpu = 1;
  gpuPod.scheduling.tolerations = {{"nvidia.com/gpu", "Exists", "", "NoSchedule", {}}};
  CHECK(podFits(gpuPod, gpu));
  gpuPod.scheduling.nodeSelector = {{"node-type", "compute-optimized"}};
  CHECK_FALSE(podFits(gpuPod, gpu));
  gpuPod.scheduling.nodeSelector.clear();
  gpuPod.request.gpu = 3;
  CHECK_FALSE(podFits(gpuPod, gpu));
  Pod daemon = cpuPod;
  daemon.scheduling.tolerations = {{"", "Exists", "", "", {}}};
  CHECK(podFits(daemon, gpu));
  daemon.request.cpu = 9;
  CHECK_FALSE(podFits(daemon, gpu));
}

TEST_CASE("the scheduler prefers the least allocated node", "[simulator][scheduler]") {
  std::vector<Node> nodes(2);
  nodes[0].name = "busy";
  nodes[1].name = "idle";
  for (auto& n : nodes) {
    n.allocatable = Resources{16, 64e9, 0, 110};
  }
  nodes[0].used = Resources{12, 48e9, 0, 5};
  std::vector<Pod> pods;
  Scheduler scheduler(nodes, pods, 1);
  Pod p;
  p.request = Resources{1, 1e9, 0, 1};
  CHECK(scheduler.place(p) == 1);
  Pod huge;
  huge.request = Resources{17, 1e9, 0, 1};
  CHECK(scheduler.place(huge) == -1);
}

// Seed-convention and Airflow run ids carry only the arrival time: two DAGs arriving together
// have runs of the same name, which the comparisons must not pair with each other.
TEST_CASE("the comparisons pair each run with its own DAG's run of the same name",
          "[simulator][report]") {
  auto loaded = onOneBigNode("same-minute", R"(
  - name: quick
    tasks:
      - {id: a, cpu: "1", memory: 1Gi, runtime: 100, runtime_sigma: 0}
  - name: slow
    tasks:
      - {id: b, cpu: "1", memory: 1Gi, runtime: 1000, runtime_sigma: 0}
)");
  INFO(loaded.error);
  REQUIRE(loaded.scenario);
  const History before = simulate(*loaded.scenario, Policy::kBaseline);
  const History after = simulate(*loaded.scenario, Policy::kBaseline);
  REQUIRE(before.runs.size() == 2);
  REQUIRE(before.runs[0].name == before.runs[1].name);
  // The same history on both sides: no run changed.
  const nlohmann::json window = windowComparison(before, after, 0, 7200);
  CHECK(window["runs"] == 2);
  CHECK(window["affected_runs"]["count"] == 0);
  CHECK(comparison(before, after)["affected_runs"]["count"] == 0);
}
