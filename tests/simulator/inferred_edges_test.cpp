// How well dagadvisor's timing inference (src/model/adapters/inferred_edges.cpp) recovers the
// simulator's true DAGs. Every run of a scenario is rebuilt as the daemon would see it when
// the engine does not put dependencies on the pods (the seed convention's annotation removed):
// task pods with creation and finish times only. The inferred edges are then compared with the
// scenario's declared parents. Floors are set a few points under the figures measured when the
// test was written (printed on every run), so a regression in the inference shows.
#include "model/adapters/inferred_edges.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "config/config.h"
#include "model/cluster.h"
#include "model/workflow.h"
#include "sim_test_support.h"

namespace {

namespace sim = dagadvisor::sim;
namespace model = dagadvisor::model;

struct Tally {
  std::size_t true_edges = 0;
  std::size_t inferred = 0;
  std::size_t correct = 0;
  std::size_t children = 0;       // tasks with at least one true parent
  std::size_t awaited_found = 0;  // of those, the parent that finished last was inferred
  double precision() const { return inferred > 0 ? double(correct) / double(inferred) : 0; }
  double recall() const { return true_edges > 0 ? double(correct) / double(true_edges) : 0; }
  double awaitedRecall() const {
    return children > 0 ? double(awaited_found) / double(children) : 0;
  }
};

model::Pod podOf(const sim::Pod& p) {
  model::Pod pod;
  pod.namespace_ = p.ns;
  pod.name = p.name;
  pod.uid = p.uid;
  pod.created = p.created;
  if (p.started != sim::kNever) {
    pod.started = p.started;
  }
  if (p.finished != sim::kNever) {
    pod.finished = p.finished;
    pod.phase = model::PodPhase::kSucceeded;
  } else {
    pod.phase = pod.started ? model::PodPhase::kRunning : model::PodPhase::kPending;
  }
  return pod;
}

// One simulated run as pods and a WorkflowRun without edges; `spec_index[t]` is the workflow
// spec's index of run task t (only tasks whose pod was created are included).
struct Rebuilt {
  std::vector<model::Pod> pods;
  model::WorkflowRun run;
  std::vector<std::size_t> spec_index;
};

Rebuilt rebuild(const sim::History& h, const sim::Run& r) {
  Rebuilt out;
  const auto& spec = h.scenario->workflows[static_cast<std::size_t>(r.workflow)];
  out.run.namespace_ = r.ns;
  out.run.dag = spec.name;
  out.run.run = r.name;
  for (std::size_t i = 0; i < r.taskPods.size(); ++i) {
    if (r.taskPods[i] < 0) {
      continue;
    }
    out.run.tasks.push_back({spec.tasks[i].id, static_cast<model::PodId>(out.pods.size()), 1, {}});
    out.pods.push_back(podOf(h.pods[static_cast<std::size_t>(r.taskPods[i])]));
    out.spec_index.push_back(i);
  }
  return out;
}

void tallyRun(const sim::History& h, const sim::Run& r, double window, Tally& tally) {
  Rebuilt b = rebuild(h, r);
  const std::size_t n = b.run.tasks.size();
  model::ClusterSnapshot cluster(h.end, {}, b.pods);
  model::inferEdgesFromTiming(b.run, cluster, window);
  std::set<std::pair<std::size_t, std::size_t>> inferred;
  for (const model::Edge& e : b.run.edges) {
    inferred.emplace(e.parent, e.child);
  }
  const auto& spec = h.scenario->workflows[static_cast<std::size_t>(r.workflow)];
  for (std::size_t child = 0; child < n; ++child) {
    const auto& parents = spec.tasks[b.spec_index[child]].parents;
    std::optional<std::size_t> awaited;  // the true parent that finished last
    for (std::size_t parent = 0; parent < n; ++parent) {
      const auto& id = spec.tasks[b.spec_index[parent]].id;
      if (std::find(parents.begin(), parents.end(), id) == parents.end()) {
        continue;
      }
      ++tally.true_edges;
      tally.correct += inferred.count({parent, child});
      if (!awaited || *b.pods[parent].finished > *b.pods[*awaited].finished) {
        awaited = parent;
      }
    }
    if (awaited) {
      ++tally.children;
      tally.awaited_found += inferred.count({*awaited, child});
    }
  }
  tally.inferred += inferred.size();
}

Tally measure(const std::string& scenario_name) {
  const sim::Scenario scenario = sim::test::loadShipped(scenario_name);
  const sim::History h = sim::simulate(scenario, sim::Policy::kBaseline);
  const double window = dagadvisor::config::WorkflowLabels{}.inference_window.count();
  Tally tally;
  for (const sim::Run& r : h.runs) {
    tallyRun(h, r, window, tally);
  }
  std::printf(
      "inferred edges, scenario %-20s runs %4zu  true edges %5zu  inferred %5zu  "
      "precision %5.1f %%  recall %5.1f %%  awaited parent found %5.1f %%\n",
      scenario_name.c_str(), h.runs.size(), tally.true_edges, tally.inferred,
      100 * tally.precision(), 100 * tally.recall(), 100 * tally.awaitedRecall());
  return tally;
}

}  // namespace

TEST_CASE("timing inference against the simulator's true edges", "[simulator][inference]") {
  struct Floor {
    const char* scenario;
    double precision;
    double recall;
    double awaited;
  };
  // Measured − 5 points (see the comment at the top); the figures are in docs/graph.md.
  // Measured at writing: seed 99.5 % / 71.1 % / 100 %, latency-spike 100 % / 80.0 % / 100 %,
  // dag-stacking 100 % / 64.3 % / 100 % (precision / recall / awaited parent found).
  for (const Floor& floor :
       {Floor{"seed", 0.945, 0.661, 0.95}, Floor{"latency-spike", 0.95, 0.75, 0.95},
        Floor{"dag-stacking", 0.95, 0.593, 0.95}}) {
    INFO(floor.scenario);
    const Tally t = measure(floor.scenario);
    REQUIRE(t.true_edges > 0);
    CHECK(t.precision() >= floor.precision);
    CHECK(t.recall() >= floor.recall);
    CHECK(t.awaitedRecall() >= floor.awaited);
  }
}
