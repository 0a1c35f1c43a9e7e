#include "model/adapters/adapter_registry.h"

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "model/adapters/argo_pods.h"
#include "model/adapters/kubeflow_pods.h"
#include "support/builders.h"

using namespace dagadvisor;
using testing::makeNode;
using testing::makePod;

namespace {

using Labels = std::vector<std::pair<std::string, std::string>>;

// A finished pod created at `created` that ran [created + 5, finished]; labels and annotations
// are given in Kubernetes spelling, the way the adapters must also accept them.
model::Pod pod(std::string name, const Labels& labels, const Labels& annotations, double created,
               double finished) {
  return makePod("ns", std::move(name), "n1", 1, 1, 0, [&](model::Pod& p) {
    for (const auto& [k, v] : labels) {
      p.labels.set(k, v);
    }
    for (const auto& [k, v] : annotations) {
      p.annotations.set(k, v);
    }
    p.created = created;
    p.scheduled = created + 1;
    p.started = created + 5;
    p.finished = finished;
    p.phase = model::PodPhase::kSucceeded;
  });
}

model::Pod argoPod(std::string wf, std::string node_name, double created, double finished) {
  return pod(wf + "-" + node_name, {{"workflows.argoproj.io/workflow", wf}},
             {{"workflows.argoproj.io/node-name", wf + "." + node_name}}, created, finished);
}

const model::WorkflowRun& runOf(const std::vector<model::WorkflowRun>& runs,
                                std::string_view engine) {
  auto it = std::find_if(runs.begin(), runs.end(),
                         [&](const model::WorkflowRun& r) { return r.engine == engine; });
  INFO("engine " << engine);
  REQUIRE(it != runs.end());
  return *it;
}

const model::Task& taskOf(const model::WorkflowRun& run, std::string_view id) {
  auto it = std::find_if(run.tasks.begin(), run.tasks.end(),
                         [&](const model::Task& t) { return t.id == id; });
  INFO("task " << id);
  REQUIRE(it != run.tasks.end());
  return *it;
}

bool hasEdge(const model::WorkflowRun& run, std::string_view parent, std::string_view child) {
  for (const model::Edge& e : run.edges) {
    if (run.tasks[e.parent].id == parent && run.tasks[e.child].id == child) {
      return true;
    }
  }
  return false;
}

}  // namespace

TEST_CASE("Argo node names fold retries and keep nested DAG paths", "[model][adapters]") {
  CHECK(model::argoTaskName("wf", "wf.B(0)") == "B");
  CHECK(model::argoTaskName("wf", "wf.sub-dag1.fail(1)") == "sub-dag1.fail");
  CHECK(model::argoTaskName("wf", "wf.sub(2).x(10)") == "sub.x");
  CHECK(model::argoTaskName("wf", "wf.fan(0:a)") == "fan(0:a)");
  CHECK(model::argoTaskName("wf", "other.B") == "other.B");
  CHECK(model::argoTaskName("wf", "wf") == "wf");
  CHECK(model::argoTaskName("wf", "wf[1].step(0)") == "[1].step");
  CHECK(model::argoDagName("report-x7k2p") == "report");
  CHECK(model::argoDagName("report") == "report");
  CHECK(model::argoDagName("report-Xy") == "report-Xy");
  CHECK(model::kubeflowNode("root.train-driver")->task == "train");
  CHECK(model::kubeflowNode("root.train-driver")->driver);
  CHECK(model::kubeflowNode("root.sub.train.executor")->task == "sub.train");
  CHECK_FALSE(model::kubeflowNode("root.train.executor")->driver);
  CHECK_FALSE(model::kubeflowNode("root-driver"));
}

TEST_CASE("every engine's pods become runs, each pod claimed once", "[model][adapters]") {
  std::vector<model::Pod> pods = {
      // Argo: A then B with a retry of B.
      argoPod("etl-abcde", "A", 0, 100),
      argoPod("etl-abcde", "B(0)", 100, 150),
      argoPod("etl-abcde", "B(1)", 160, 300),
      // Airflow: raw annotations win over the sanitised labels; try 2 is the latest.
      pod("af-1",
          {{"dag_id", "daily"},
           {"task_id", "load"},
           {"run_id", "manual__2026-01-01T0000-x"},
           {"try_number", "1"}},
          {{"dag_id", "daily"},
           {"task_id", "load"},
           {"run_id", "manual__2026-01-01T00:00:00+00:00"},
           {"try_number", "1"}},
          0, 50),
      pod("af-2", {{"dag_id", "daily"}, {"task_id", "load"}, {"run_id", "x"}, {"try_number", "2"}},
          {{"dag_id", "daily"},
           {"task_id", "load"},
           {"run_id", "manual__2026-01-01T00:00:00+00:00"},
           {"try_number", "2"}},
          60, 90),
      pod("af-map",
          {{"dag_id", "daily"},
           {"task_id", "fan"},
           {"try_number", "1"},
           {"map_index", "3"},
           {"run_id", "r"}},
          {}, 0, 10),
      // Tekton.
      pod("pr-a-pod",
          {{"tekton.dev/pipelineRun", "pr"},
           {"tekton.dev/pipelineTask", "a"},
           {"tekton.dev/pipeline", "build"}},
          {}, 0, 10),
      // Kubeflow: driver and executor fold into one task; the root driver is no task.
      pod("kfp-root", {{"workflows.argoproj.io/workflow", "p-xyz12"}, {"pipeline/runid", "u1"}},
          {{"workflows.argoproj.io/node-name", "p-xyz12.root-driver"}}, 0, 3),
      pod("kfp-d", {{"workflows.argoproj.io/workflow", "p-xyz12"}, {"pipeline/runid", "u1"}},
          {{"workflows.argoproj.io/node-name", "p-xyz12.root.train-driver"}}, 5, 8),
      pod("kfp-e", {{"workflows.argoproj.io/workflow", "p-xyz12"}, {"pipeline/runid", "u1"}},
          {{"workflows.argoproj.io/node-name", "p-xyz12.root.train.executor"}}, 9, 40),
      // Spark: a driver and two executors are one task.
      pod("sp-drv",
          {{"spark-app-selector", "spark-1"}, {"spark-role", "driver"}, {"spark-app-name", "agg"}},
          {}, 0, 100),
      pod("sp-e1",
          {{"spark-app-selector", "spark-1"},
           {"spark-role", "executor"},
           {"spark-app-name", "agg"}},
          {}, 10, 90),
      pod("sp-e2", {{"spark-app-selector", "spark-1"}, {"spark-role", "executor"}}, {}, 10, 90),
      // Seed convention.
      pod("s-a", {{"dag-id", "train"}, {"task-id", "a"}}, {}, 0, 10),
      pod("s-b", {{"dag-id", "train"}, {"task-id", "b"}}, {{"workflow.dependencies", "a"}}, 10, 20),
      // Nobody's.
      pod("web-1", {{"app", "web"}}, {}, 0, 10),
  };
  model::ClusterSnapshot cluster(1000, {makeNode("n1", 64, 256)}, std::move(pods));
  config::WorkflowLabels keys;
  keys.infer_edges = false;
  const auto runs = model::buildRuns(cluster, keys);
  for (const auto& r : runs) {
    UNSCOPED_INFO(r.engine << " " << r.id());
  }
  REQUIRE(runs.size() == 7);

  const auto& argo = runOf(runs, "argo");
  CHECK(argo.id() == "ns/etl/etl-abcde");
  CHECK(argo.tasks.size() == 2);
  CHECK(taskOf(argo, "B").attempts == 2);
  CHECK(cluster.pod(taskOf(argo, "B").pod).name == "etl-abcde-B(1)");
  using Selector = std::vector<std::pair<std::string, std::string>>;
  CHECK(argo.selector == Selector{{"workflows.argoproj.io/workflow", "etl-abcde"}});
  CHECK(argo.dag_selector.empty());  // Argo copies no template label onto its pods

  const auto& airflow = runOf(runs, "airflow");
  CHECK(airflow.id() == "ns/daily/manual__2026-01-01T00:00:00+00:00");
  CHECK(taskOf(airflow, "load").attempts == 2);
  CHECK(cluster.pod(taskOf(airflow, "load").pod).name == "af-2");
  // Selectors match pods by label, so they carry the sanitised label, not the raw run id.
  CHECK(airflow.selector == Selector{{"dag_id", "daily"}, {"run_id", "manual__2026-01-01T0000-x"}});
  CHECK(airflow.dag_selector == Selector{{"dag_id", "daily"}});
  // The mapped instance carries the sanitised run id "r" only: its own run.
  CHECK(std::count_if(runs.begin(), runs.end(),
                      [](const auto& r) { return r.engine == "airflow"; }) == 2);

  const auto& tekton = runOf(runs, "tekton");
  CHECK(tekton.id() == "ns/build/pr");
  CHECK(tekton.selector == Selector{{"tekton.dev/pipelineRun", "pr"}});
  CHECK(tekton.dag_selector == Selector{{"tekton.dev/pipeline", "build"}});

  const auto& kfp = runOf(runs, "kubeflow");
  CHECK(kfp.id() == "ns/p/u1");
  REQUIRE(kfp.tasks.size() == 1);
  CHECK(kfp.tasks[0].id == "train");
  CHECK(kfp.tasks[0].attempts == 1);
  CHECK(cluster.pod(kfp.tasks[0].pod).name == "kfp-e");
  CHECK(kfp.selector == Selector{{"pipeline/runid", "u1"}});

  const auto& spark = runOf(runs, "spark");
  CHECK(spark.id() == "ns/agg/spark-1");
  REQUIRE(spark.tasks.size() == 1);
  CHECK(spark.tasks[0].attempts == 1);
  CHECK(cluster.pod(spark.tasks[0].pod).name == "sp-drv");
  CHECK(spark.selector == Selector{{"spark-app-selector", "spark-1"}});
  CHECK(spark.dag_selector == Selector{{"spark-app-name", "agg"}});

  const auto& seed = runOf(runs, "labels");
  CHECK(seed.tasks.size() == 2);
  CHECK(hasEdge(seed, "a", "b"));
  CHECK(seed.selector == Selector{{"dag-id", "train"}});  // no run label: the DAG is the run
  CHECK(seed.dag_selector == Selector{{"dag-id", "train"}});
  for (const auto& run : runs) {
    for (const auto& e : run.edges) {
      CHECK_FALSE(e.inferred);
    }
  }
}

TEST_CASE("mapped Airflow task instances are tasks of their own", "[model][adapters]") {
  model::ClusterSnapshot cluster(1000, {makeNode("n1", 8, 8)},
                                 {pod("m0",
                                      {{"dag_id", "d"},
                                       {"task_id", "t"},
                                       {"run_id", "r"},
                                       {"map_index", "0"},
                                       {"airflow_version", "2.9.3"}},
                                      {}, 0, 10),
                                  pod("m1",
                                      {{"dag_id", "d"},
                                       {"task_id", "t"},
                                       {"run_id", "r"},
                                       {"map_index", "1"},
                                       {"airflow_version", "2.9.3"}},
                                      {}, 0, 10)});
  const auto runs = model::buildRuns(cluster, config::WorkflowLabels{});
  REQUIRE(runs.size() == 1);
  CHECK(runs[0].tasks.size() == 2);
  CHECK(taskOf(runs[0], "t[1]").attempts == 1);
}

TEST_CASE("engines can be switched off", "[model][adapters]") {
  model::ClusterSnapshot cluster(
      1000, {makeNode("n1", 8, 8)},
      {argoPod("w", "A", 0, 10), pod("s", {{"dag-id", "d"}, {"task-id", "t"}}, {}, 0, 10)});
  config::WorkflowLabels keys;
  keys.engines = {"labels"};
  const auto runs = model::buildRuns(cluster, keys);
  REQUIRE(runs.size() == 1);
  CHECK(runs[0].engine == "labels");
}

TEST_CASE("edges are inferred from timing when the engine declares none", "[model][adapters]") {
  // A (0–100) → B, C created at 102 and 103; D created at 400 after B (→ 300) and C (→ 395).
  // E is created at 200: nothing finished in [170, 200], so it is a root.
  model::ClusterSnapshot cluster(
      1000, {makeNode("n1", 64, 256)},
      {argoPod("w", "A", 0, 100), argoPod("w", "B", 102, 300), argoPod("w", "C", 103, 395),
       argoPod("w", "D", 400, 500), argoPod("w", "E", 200, 210)});
  config::WorkflowLabels keys;
  keys.inference_window = config::Seconds(30);
  const auto runs = model::buildRuns(cluster, keys);
  REQUIRE(runs.size() == 1);
  const auto& run = runs[0];
  CHECK(run.edges.size() == 3);
  CHECK(hasEdge(run, "A", "B"));
  CHECK(hasEdge(run, "A", "C"));
  CHECK(hasEdge(run, "C", "D"));
  CHECK_FALSE(hasEdge(run, "B", "D"));  // finished 100 s before D: outside the window
  for (const auto& e : run.edges) {
    CHECK(e.inferred);
  }
  REQUIRE(run.problems.size() == 1);
  CHECK_THAT(run.problems[0], Catch::Contains("3 dependencies inferred"));

  keys.inference_window = config::Seconds(100);
  CHECK(hasEdge(model::buildRuns(cluster, keys)[0], "B", "D"));
  keys.infer_edges = false;
  CHECK(model::buildRuns(cluster, keys)[0].edges.empty());
}

namespace {

// Each run as one line: engine, id, and its tasks (id, attempts, pod) and edges.
std::string describeRuns(const std::vector<model::WorkflowRun>& runs,
                         const model::ClusterSnapshot& cluster) {
  std::string out;
  for (const model::WorkflowRun& run : runs) {
    out += run.engine + " " + run.id() + ":";
    for (const model::Task& task : run.tasks) {
      out += " " + task.id + "x" + std::to_string(task.attempts) + "@" + cluster.pod(task.pod).name;
    }
    for (const model::Edge& edge : run.edges) {
      out += " " + run.tasks[edge.parent].id + ">" + run.tasks[edge.child].id;
    }
    out += "\n";
  }
  return out;
}

// `pods` with only the annotations `keep` names (kube-state-metrics' spelling).
model::ClusterSnapshot withAnnotations(std::vector<model::Pod> pods,
                                       const std::vector<std::string>& keep) {
  for (model::Pod& p : pods) {
    model::LabelSet kept;
    for (const auto& [key, value] : p.annotations.items()) {
      if (std::find(keep.begin(), keep.end(), key) != keep.end()) {
        kept.set(key, value);
      }
    }
    p.annotations = kept;
  }
  return model::ClusterSnapshot(1000, {makeNode("n1", 64, 256)}, std::move(pods));
}

}  // namespace

TEST_CASE("the annotations each adapter declares are all it reads", "[model][adapters]") {
  config::WorkflowLabels keys;
  keys.infer_edges = false;
  keys.dependencies_annotation = "example.com/after";
  const std::vector<std::string> read = model::podAnnotationsRead(keys);
  CHECK(std::is_sorted(read.begin(), read.end()));
  CHECK(std::find(read.begin(), read.end(), "example_com_after") != read.end());
  CHECK(std::find(read.begin(), read.end(), "workflows_argoproj_io_node_name") != read.end());

  // Every engine's pods, naming their tasks, runs and edges by annotation where the engine
  // allows it, among annotations no adapter reads.
  const Labels noise = {{"kubectl.kubernetes.io/restartedAt", "2026-01-01"},
                        {"prometheus.io/scrape", "true"}};
  auto annotated = [&](Labels annotations) {
    annotations.insert(annotations.end(), noise.begin(), noise.end());
    return annotations;
  };
  const std::vector<model::Pod> pods = {
      pod("wf-a", {{"workflows.argoproj.io/workflow", "wf"}},
          annotated({{"workflows.argoproj.io/node-name", "wf.A(1)"}}), 0, 10),
      pod("wf-b", {{"workflows.argoproj.io/workflow", "wf"}},
          annotated({{"workflows.argoproj.io/node-id", "wf-123"}}), 0, 10),
      pod("kfp-e", {{"workflows.argoproj.io/workflow", "p-xyz12"}},
          annotated({{"pipelines.kubeflow.org/v2_component", "true"},
                     {"workflows.argoproj.io/node-name", "p-xyz12.root.train.executor"}}),
          9, 40),
      pod("af", {{"dag_id", "d"}, {"task_id", "t"}, {"airflow_version", "2.9.3"}},
          annotated({{"logical_date", "2026-01-01T00:00:00+00:00"},
                     {"map_index", "2"},
                     {"try_number", "3"}}),
          0, 10),
      pod("s-a", {{"dag-id", "train"}, {"task-id", "a"}}, annotated({}), 0, 10),
      pod("s-b", {{"dag-id", "train"}, {"task-id", "b"}}, annotated({{"example.com/after", "a"}}),
          10, 20),
  };
  const model::ClusterSnapshot whole(1000, {makeNode("n1", 64, 256)}, pods);
  const model::ClusterSnapshot declared = withAnnotations(pods, read);
  const model::ClusterSnapshot none = withAnnotations(pods, {});
  const std::string expected = describeRuns(model::buildRuns(whole, keys), whole);
  CHECK(describeRuns(model::buildRuns(declared, keys), declared) == expected);
  // The pods above do depend on their annotations.
  CHECK(describeRuns(model::buildRuns(none, keys), none) != expected);

  keys.engines = {"tekton", "spark"};  // engines that read no annotation
  CHECK(model::podAnnotationsRead(keys).empty());
}

// kube-state-metrics exports only allow-listed annotations: the flags the project ships must
// allow every annotation the adapters read, and no other (each costs a series a pod).
TEST_CASE("the shipped kube-state-metrics flags allow-list the annotations the adapters read",
          "[model][adapters]") {
  std::ifstream flags(std::string(DAGADVISOR_SOURCE_DIR) + "/config/kube-state-metrics/flags.txt");
  REQUIRE(flags);
  const std::string prefix = "--metric-annotations-allowlist=pods=[";
  std::vector<std::string> allowed;
  for (std::string line; std::getline(flags, line);) {
    if (line.rfind(prefix, 0) == 0 && line.back() == ']') {
      std::stringstream keys(line.substr(prefix.size(), line.size() - prefix.size() - 1));
      for (std::string key; std::getline(keys, key, ',');) {
        allowed.push_back(model::LabelSet::normalizeKey(key));
      }
    }
  }
  std::sort(allowed.begin(), allowed.end());
  CHECK(allowed == model::podAnnotationsRead(config::WorkflowLabels{}));
}
