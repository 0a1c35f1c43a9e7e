#include "graph/run_graph.h"

#include <catch2/catch.hpp>

#include "model/adapters/labelled_pods.h"
#include "support/builders.h"

using namespace dagadvisor;
using testing::makeNode;
using testing::makePod;

namespace {

// A task pod of the seed convention that ran from `start` for `seconds`.
model::Pod taskPod(std::string run, std::string task, std::string parents, double created,
                   double start, double seconds) {
  return makePod("ml", run + "-" + task, "n1", 1, 1, 0, [&](model::Pod& p) {
    p.labels.set("dag-id", "train");
    p.labels.set("dag-run", run);
    p.labels.set("task-id", task);
    if (!parents.empty()) {
      p.annotations.set("workflow.dependencies", parents);
    }
    p.created = created;
    p.scheduled = start;
    p.started = start;
    p.finished = start + seconds;
    p.phase = model::PodPhase::kSucceeded;
  });
}

}  // namespace

TEST_CASE("runs are rebuilt from dag-id, dag-run, task-id and workflow.dependencies", "[model]") {
  std::vector<model::Pod> pods = {
      taskPod("r1", "extract", "", 0, 10, 100),
      taskPod("r1", "clean", "extract", 0, 120, 50),
      taskPod("r1", "features", "extract", 0, 115, 300),
      taskPod("r1", "train", " clean , features ", 0, 500, 1000),
      taskPod("r2", "extract", "", 5000, 5000, 10),
      makePod("kube-system", "fluentd-x", "n1", 0.5, 1),
  };
  model::ClusterSnapshot cluster(2000, {makeNode("n1", 64, 256)}, std::move(pods));
  const auto runs = model::buildLabelledRuns(cluster, config::WorkflowLabels{});
  REQUIRE(runs.size() == 2);
  const model::WorkflowRun& r1 = runs[0];
  CHECK(r1.id() == "ml/train/r1");
  CHECK(r1.tasks.size() == 4);
  CHECK(r1.edges.size() == 4);
  CHECK(r1.problems.empty());

  const auto g = graph::buildRunGraph(r1, cluster);
  CHECK(g.finished);
  CHECK(g.makespan == 1500);              // created at 0, train finishes at 1500
  CHECK(g.critical_path.length == 1400);  // extract 100 + features 300 + train 1000
  std::vector<std::string> path;
  for (auto t : g.critical_path.tasks) {
    path.push_back(r1.tasks[t].id);
  }
  CHECK(path == std::vector<std::string>{"extract", "features", "train"});
  CHECK(g.efficiency() == Approx(1400.0 / 1500.0));
}

TEST_CASE("missing parents are reported, retries become attempts", "[model]") {
  std::vector<model::Pod> pods = {
      taskPod("r1", "a", "", 0, 0, 10),
      taskPod("r1", "b", "a,ghost", 0, 20, 10),
  };
  // A retry of "a": a second pod with the same task id, created later.
  pods.push_back(taskPod("r1", "a", "", 0, 0, 30));
  pods.back().name = "r1-a-retry";
  pods.back().created = 5;
  model::ClusterSnapshot cluster(100, {makeNode("n1", 8, 8)}, std::move(pods));
  const auto runs = model::buildLabelledRuns(cluster, config::WorkflowLabels{});
  REQUIRE(runs.size() == 1);
  REQUIRE(runs[0].tasks.size() == 2);
  CHECK(runs[0].tasks[0].attempts == 2);
  CHECK(cluster.pod(runs[0].tasks[0].pod).name == "r1-a-retry");
  REQUIRE(runs[0].problems.size() == 1);
  CHECK_THAT(runs[0].problems[0], Catch::Contains("ghost"));
}

TEST_CASE("a dependency cycle becomes a problem naming it, not a crash", "[model]") {
  std::vector<model::Pod> pods = {taskPod("r", "a", "c", 0, 0, 1), taskPod("r", "b", "a", 0, 0, 1),
                                  taskPod("r", "c", "b", 0, 0, 1)};
  model::ClusterSnapshot cluster(100, {makeNode("n1", 8, 8)}, std::move(pods));
  const auto runs = model::buildLabelledRuns(cluster, config::WorkflowLabels{});
  const auto g = graph::buildRunGraph(runs.at(0), cluster);
  REQUIRE(g.problems.size() == 1);
  CHECK_THAT(g.problems[0], Catch::Contains("dependency cycle"));
  CHECK(g.critical_path.tasks.empty());
}

TEST_CASE("label keys match in either spelling", "[model]") {
  model::LabelSet labels;
  labels.set("topology.kubernetes.io/zone", "eu-1a");
  CHECK(labels.get("topology_kubernetes_io_zone") == "eu-1a");
  CHECK(labels.get("topology.kubernetes.io/zone") == "eu-1a");
  CHECK_FALSE(labels.get("zone").has_value());
}
