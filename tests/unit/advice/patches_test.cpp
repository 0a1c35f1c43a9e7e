#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <set>

#include "advice/kind_list.h"
#include "advice/recommender.h"
#include "analysis/detectors/batch_online_colocation.h"
#include "analysis/detectors/gpu_node_hoarding.h"
#include "unit/analysis/scenarios.h"

using namespace dagadvisor;
using testing::makeNode;
using testing::makePod;
using testing::ownedBy;

namespace {

// The seed's GPU node: a log collector and a web service hold its CPU while a GPU pod pends.
testing::RunFixture hoardingScenario() {
  testing::RunFixture fx;
  fx.nodes = {makeNode("gpu-1", 16, 64, 4)};
  fx.pods = {makePod("logging", "fluentd-abc", "gpu-1", 6, 8, 0, ownedBy("DaemonSet", "fluentd")),
             makePod("web", "api-1", "gpu-1", 6, 8, 0, ownedBy("ReplicaSet", "api-7d9")),
             makePod("ml", "train-1", "", 8, 16, 1, ownedBy("Job", "train"))};
  return fx;
}

// A parent in zone a with five children in zone b (150 s of estimated transfer, over the
// split-dependencies floor), and five tasks of one run stacked on a busy node beside an idle
// peer of its pool.
testing::RunFixture splitAndStackScenario() {
  testing::RunFixture fx;
  fx.nodes = {testing::zonedNode("a1", "a"), testing::zonedNode("b1", "b"),
              testing::labelledNode("s1", 16, 64, "compute"),
              testing::labelledNode("s2", 16, 64, "compute")};
  std::vector<testing::TaskSpec> split = {{"a", "a1", 0, 10}};
  std::vector<model::Edge> fan_out;
  for (model::TaskIndex child = 1; child <= 5; ++child) {
    split.push_back({"c" + std::to_string(child), "b1", 10, 20});
    fan_out.push_back({0, child});
  }
  fx.addRun("etl", "split", "r1", split, fan_out);
  std::vector<testing::TaskSpec> stacked;
  for (int i = 0; i < 5; ++i) {
    stacked.push_back({"t" + std::to_string(i), "s1", 100, 0, 3});
  }
  fx.addRun("etl", "stack", "r1", stacked, {});
  return fx;
}

std::vector<analysis::Finding> allFindings() {
  std::vector<testing::RunFixture> scenarios;
  scenarios.push_back(hoardingScenario());
  scenarios.push_back(splitAndStackScenario());
  scenarios.push_back(testing::criticalPathScenario());
  scenarios.push_back(testing::poolMismatchScenario());
  scenarios.push_back(testing::overRequestScenario());
  scenarios.push_back(testing::colocationScenario());
  std::vector<analysis::Finding> findings;
  for (testing::RunFixture& fx : scenarios) {
    for (const auto& detector : advice::allDetectors()) {
      for (analysis::Finding& f : fx.detect(*detector)) {
        findings.push_back(std::move(f));
      }
    }
  }
  return findings;
}

std::vector<std::string> documents(const std::string& patch) {
  std::vector<std::string> docs;
  for (std::size_t start = 0; start < patch.size();) {
    std::size_t end = patch.find("---\n", start + 1);
    end = end == std::string::npos ? patch.size() : end;
    docs.push_back(patch.substr(start, end - start));
    start = end;
  }
  return docs;
}

// A whole object: what `kubectl apply` / `kubectl patch` needs for its kind.
void checkObject(const YAML::Node& doc) {
  const std::string kind = doc["kind"].as<std::string>();
  CHECK_FALSE(doc["apiVersion"].as<std::string>().empty());
  REQUIRE(doc["metadata"].IsMap());
  CHECK_FALSE(doc["metadata"]["name"].as<std::string>().empty());
  if (kind == "Node") {
    const bool taints = doc["spec"] && doc["spec"]["taints"].IsSequence();
    CHECK((taints || doc["metadata"]["labels"].IsMap()));
  } else if (kind == "PriorityClass") {
    CHECK(doc["apiVersion"].as<std::string>() == "scheduling.k8s.io/v1");
    CHECK(doc["value"].as<int>() > 0);
  } else {
    INFO(kind);
    REQUIRE((kind == "Deployment" || kind == "StatefulSet" || kind == "DaemonSet"));
    CHECK(doc["apiVersion"].as<std::string>() == "apps/v1");
    CHECK_FALSE(doc["metadata"]["namespace"].as<std::string>().empty());
    CHECK(doc["spec"]["template"]["spec"]["containers"][0]["name"].IsScalar());
  }
}

// A pod-template fragment: a `spec` of pod-spec fields only.
void checkFragment(const YAML::Node& doc) {
  static const std::set<std::string> kPodSpecFields = {"tolerations", "affinity",
                                                       "priorityClassName", "containers"};
  REQUIRE(doc["spec"].IsMap());
  for (const auto& field : doc["spec"]) {
    INFO(field.first.as<std::string>());
    CHECK(kPodSpecFields.count(field.first.as<std::string>()) == 1);
  }
  if (doc["spec"]["containers"]) {
    CHECK(doc["spec"]["containers"][0]["resources"]["requests"]["cpu"].IsScalar());
  }
}

// A JSON patch that can only add: `add` operations, each after the `test`s that guard it; no
// `replace`, `remove`, `move` or `copy`, which could drop what the object holds.
void checkJsonPatch(const YAML::Node& doc) {
  REQUIRE(doc.size() >= 1);
  for (const YAML::Node& op : doc) {
    const std::string name = op["op"].as<std::string>();
    INFO(name);
    CHECK((name == "add" || name == "test"));
    CHECK(op["path"].as<std::string>().rfind('/', 0) == 0);
    if (name == "test") {
      CHECK(op["value"].IsNull());  // "absent": the variant that creates a missing level
    } else {
      CHECK(op["value"].IsDefined());
    }
  }
  CHECK(doc[doc.size() - 1]["op"].as<std::string>() == "add");
}

}  // namespace

TEST_CASE("every emitted patch parses as YAML and has the fields its kind requires",
          "[advice][patches]") {
  const auto recs = advice::recommend(allFindings(), config::Config{});
  std::set<std::string> kinds_with_patches;
  for (const advice::Recommendation& rec : recs) {
    if (rec.patch_yaml.empty()) {
      continue;
    }
    kinds_with_patches.insert(rec.kind);
    for (const std::string& text : documents(rec.patch_yaml)) {
      INFO(rec.kind << "\n" << text);
      YAML::Node doc;
      REQUIRE_NOTHROW(doc = YAML::Load(text));
      if (doc.IsSequence()) {
        checkJsonPatch(doc);
        continue;
      }
      REQUIRE(doc.IsMap());
      if (doc["kind"]) {
        checkObject(doc);
      } else {
        checkFragment(doc);
      }
    }
  }
  CHECK(kinds_with_patches == std::set<std::string>{"gpu-node-hoarding", "split-dependencies",
                                                    "dag-stacking", "critical-path-priority",
                                                    "pool-mismatch", "over-request",
                                                    "batch-online-colocation"});
}

TEST_CASE("gpu-node-hoarding's first step names the objects that define the GPU pods",
          "[advice][patches]") {
  testing::RunFixture fx = hoardingScenario();
  // A Deployment's GPU pod besides the Job's: its ReplicaSet ends in the pod-template-hash.
  fx.pods.push_back(makePod("ml", "serve-5f6d8-x1", "", 2, 4, 1, [](model::Pod& p) {
    ownedBy("ReplicaSet", "serve-5f6d8")(p);
    p.labels.set("pod-template-hash", "5f6d8");
  }));
  const auto findings = fx.detect(analysis::GpuNodeHoarding());
  const auto recs = advice::recommend(findings, config::Config{}, *fx.cluster);
  REQUIRE(recs.size() == 1);
  std::vector<std::string> step1;
  for (const advice::Patch& patch : recs[0].patches) {
    if (patch.step == 1) {
      step1.push_back(patch.object.kind + " " + patch.object.namespace_ + "/" +
                      patch.object.names.at(0));
      if (patch.object.kind == "Pod") {
        continue;  // the pending pods themselves, not a definition (the test below)
      }
      REQUIRE(patch.pods.has_value());
      CHECK(patch.pod_variants.size() == patch.variants.size());
      CHECK(patch.pod_variants[0][0].path == "/spec/tolerations/-");
    }
  }
  // The definitions, then the pending pod itself, which keeps the spec it was made with.
  CHECK(step1 == std::vector<std::string>{"Deployment ml/serve", "Job ml/train", "Pod ml/train-1"});
  CHECK_THAT(recs[0].patch_yaml, !Catch::Contains("<namespace>"));  // no placeholder to fill
  CHECK_THAT(recs[0].patch_yaml, !Catch::Contains("<gpu-workload>"));
  const advice::Patch& taint = recs[0].patches.back();
  CHECK(taint.step == 3);
  CHECK(taint.object.kind == "Node");
  CHECK(taint.object.names == std::vector<std::string>{"gpu-1"});
  CHECK_FALSE(taint.pods.has_value());
}

TEST_CASE("gpu-node-hoarding names the GPU workloads of one kind and namespace in one patch",
          "[advice][patches]") {
  testing::RunFixture fx = hoardingScenario();
  for (const char* job : {"train-b", "train-c"}) {
    fx.pods.push_back(makePod("ml", std::string(job) + "-1", "", 2, 4, 1, ownedBy("Job", job)));
  }
  fx.pods.push_back(makePod("research", "probe-1", "", 2, 4, 1, ownedBy("Job", "probe")));
  const auto findings = fx.detect(analysis::GpuNodeHoarding());
  const auto recs = advice::recommend(findings, config::Config{}, *fx.cluster);
  REQUIRE(recs.size() == 1);
  std::vector<const advice::Patch*> step1;
  for (const advice::Patch& patch : recs[0].patches) {
    if (patch.step == 1) {
      step1.push_back(&patch);
    }
  }
  REQUIRE(step1.size() == 3);  // ml's three Jobs, research's one, the pending pods themselves
  const advice::Patch& ml = *step1[0];
  CHECK(ml.object.kind == "Job");
  CHECK(ml.object.namespace_ == "ml");
  CHECK(ml.object.names == std::vector<std::string>{"train", "train-b", "train-c"});
  REQUIRE(ml.pods.has_value());
  CHECK(ml.pods->names == std::vector<std::string>{"train-1", "train-b-1", "train-c-1"});
  CHECK_THAT(ml.purpose, Catch::Contains("the 3 Jobs of namespace ml (train, train-b, train-c)"));
  CHECK(step1[1]->object.names == std::vector<std::string>{"probe"});
  CHECK_THAT(recs[0].patch_yaml, Catch::Contains("(train, train-b, train-c)"));
}

// Found on a real cluster: a taint shuts out a pending pod made before its definition tolerated
// it (a pod keeps the spec it was created with; the Workflow's or template's change reaches the
// pods made next), so the pending pods get the toleration themselves, which a live pod takes.
TEST_CASE(
    "gpu-node-hoarding tolerates the taint in the pending GPU pods themselves, before it lands",
    "[advice][patches]") {
  testing::RunFixture fx = hoardingScenario();
  const auto findings = fx.detect(analysis::GpuNodeHoarding());
  const auto recs = advice::recommend(findings, config::Config{}, *fx.cluster);
  REQUIRE(recs.size() == 1);
  const auto& patches = recs[0].patches;
  const auto live = std::find_if(patches.begin(), patches.end(), [](const advice::Patch& p) {
    return p.object.kind == "Pod" && !p.object.names.empty();
  });
  REQUIRE(live != patches.end());
  CHECK(live->step == 1);
  CHECK(live->object.namespace_ == "ml");
  CHECK(live->object.names == std::vector<std::string>{"train-1"});
  CHECK(live->command ==
        "kubectl patch pod train-1 -n ml --type=json --patch-file <this document>");
  REQUIRE_FALSE(live->variants.empty());
  CHECK(live->variants[0][0].op == "add");
  CHECK(live->variants[0][0].path == "/spec/tolerations/-");
  CHECK_FALSE(live->pods.has_value());  // the object is the pods
  CHECK(patches.back().step == 3);      // the taint still comes last
  CHECK_THAT(recs[0].action, Catch::Contains("to the GPU pods pending now"));
}

namespace {

// A DAG whose runs ask for GPUs: r-old finished, r-new in flight with its GPU task pending. Its
// pods carry `engine`'s labels: seed labels for "labels", a Workflow owner and label for "argo".
void addGpuDag(testing::RunFixture& fx, const std::string& engine) {
  const std::vector<std::string> runs = {"nightly-old00", "nightly-new00"};
  for (const std::string& run : runs) {
    const bool finished = run == runs.front();
    fx.addRun(
        "ml", "nightly", run,
        {{"prep", "gpu-1", 0, 10}, {"fit", finished ? "gpu-1" : "", 10, finished ? 20.0 : 0.0, 8}},
        {{0, 1}});
    model::WorkflowRun& r = fx.runs.back();
    r.engine = engine;
    if (engine == "argo") {
      r.selector = {{"workflows.argoproj.io/workflow", run}};
    } else {
      r.selector = {{"dag-id", "nightly"}, {"dag-run", run}};
      r.dag_selector = {{"dag-id", "nightly"}};
    }
    for (model::Pod* pod : {&fx.pods[fx.pods.size() - 2], &fx.pods.back()}) {
      if (engine == "argo") {
        pod->labels.set("workflows.argoproj.io/workflow", run);
        ownedBy("Workflow", run)(*pod);
      }
    }
    fx.pods.back().requests.gpus = 1;
    fx.pods.back().phase = finished ? model::PodPhase::kSucceeded : model::PodPhase::kPending;
  }
}

std::vector<const advice::Patch*> firstSteps(const advice::Recommendation& rec) {
  std::vector<const advice::Patch*> out;
  for (const advice::Patch& patch : rec.patches) {
    if (patch.step == 1) {
      out.push_back(&patch);
    }
  }
  return out;
}

}  // namespace

TEST_CASE("gpu-node-hoarding tolerates the taint where a GPU DAG's runs to come are defined",
          "[advice][patches]") {
  testing::RunFixture fx = hoardingScenario();
  addGpuDag(fx, "labels");
  const auto findings = fx.detect(analysis::GpuNodeHoarding());
  const auto recs = advice::recommend(findings, config::Config{}, *fx.cluster);
  REQUIRE(recs.size() == 1);
  const auto& dags = findings.at(0).evidenceAs<analysis::GpuNodeHoardingEvidence>().gpu_dags;
  REQUIRE(dags.size() == 1);
  CHECK(dags[0].runs == std::vector<std::string>{"nightly-old00", "nightly-new00"});
  CHECK(dags[0].unfinished_runs == std::vector<std::string>{"nightly-new00"});
  const auto step1 = firstSteps(recs[0]);
  REQUIRE(step1.size() == 3);  // the DAG, the Job, the pending pods themselves
  // The DAG's pods by its label, so a run created later is selected too, and in no other
  // patch; the Job's pod by its Job.
  CHECK(step1[1]->object.kind == "Job");
  REQUIRE(step1[1]->pods.has_value());
  CHECK(step1[1]->pods->names == std::vector<std::string>{"train-1"});
  CHECK(step1[0]->object.kind == "Pod");
  REQUIRE(step1[0]->pods.has_value());
  CHECK(step1[0]->pods->names.empty());
  CHECK(step1[0]->pods->match_labels ==
        std::vector<std::pair<std::string, std::string>>{{"dag-id", "nightly"}});
  // The replay tolerates it on the same pods: the DAG's by label.
  bool dag_tolerates = false;
  for (const replay::Change& change : recs[0].changes.changes) {
    if (const auto* add = std::get_if<replay::AddToleration>(&change)) {
      dag_tolerates = dag_tolerates || !add->pods.labels.requirements.empty();
    }
  }
  CHECK(dag_tolerates);
}

TEST_CASE(
    "gpu-node-hoarding tolerates the taint in an Argo DAG's WorkflowTemplate and its runs in "
    "flight",
    "[advice][patches]") {
  testing::RunFixture fx = hoardingScenario();
  addGpuDag(fx, "argo");
  const auto findings = fx.detect(analysis::GpuNodeHoarding());
  const auto recs = advice::recommend(findings, config::Config{}, *fx.cluster);
  REQUIRE(recs.size() == 1);
  std::vector<std::string> objects;
  for (const advice::Patch* patch : firstSteps(recs[0])) {
    objects.push_back(patch->object.kind + " " + patch->object.namespace_ + "/" +
                      patch->object.names.at(0) + " " + std::to_string(patch->object.names.size()));
  }
  // The finished run's Workflow makes no more pods; the template makes every run to come.
  CHECK(objects == std::vector<std::string>{"WorkflowTemplate ml/nightly 1",
                                            "Workflow ml/nightly-new00 1", "Job ml/train 1",
                                            "Pod ml/train-1 1"});
  const advice::Patch& workflow_template = *firstSteps(recs[0])[0];
  CHECK(workflow_template.variants.at(0).at(0).path == "/spec/tolerations/-");
  REQUIRE(workflow_template.pods.has_value());
  CHECK(workflow_template.pods->names ==  // every pod of both runs, by name
        std::vector<std::string>{"nightly-new00-fit", "nightly-new00-prep", "nightly-old00-fit",
                                 "nightly-old00-prep"});
}

TEST_CASE(
    "batch-online-colocation's online pool is first fit: onto nodes another service put in the "
    "pool, and per request shape onto the first node outside it that fits",
    "[advice][batch-online-colocation]") {
  testing::RunFixture fx = testing::colocationScenario();  // web-5d8 (6 cores) on n1
  fx.nodes.push_back(makeNode("n2", 16, 64));
  fx.nodes.push_back(makeNode("n3", 16, 32));
  fx.nodes.push_back(makeNode("n4", 16, 128));
  fx.nodes.push_back(makeNode("n5", 16, 64));
  // api-7d9 on n1 and n2: once web-5d8 puts n1 in the pool, api-2 fits there too.
  fx.pods.push_back(makePod("web", "api-1", "n1", 1, 4, 0, ownedBy("ReplicaSet", "api-7d9")));
  fx.pods.push_back(makePod("web", "api-2", "n2", 2, 4, 0, ownedBy("ReplicaSet", "api-7d9")));
  // cache-5f6 most on n3, then n4, then n1. Its largest pod fits n4, not n3 (memory); the next,
  // of another shape, no longer fits n4 but n3, before it.
  const auto cache = ownedBy("ReplicaSet", "cache-5f6");
  fx.pods.push_back(makePod("web", "cache-x", "n1", 1, 1, 0, cache));
  fx.pods.push_back(makePod("web", "cache-small", "n3", 9, 20, 0, cache));
  fx.pods.push_back(makePod("web", "cache-y", "n3", 2, 1, 0, cache));
  fx.pods.push_back(makePod("web", "cache-big", "n4", 10, 70, 0, cache));
  const auto findings = fx.detect(analysis::BatchOnlineColocation());  // builds fx.cluster
  const auto recs = advice::recommend(findings, config::Config{}, *fx.cluster);
  REQUIRE(recs.size() == 1);
  CHECK(recs[0].evidence["online_pool"] == nlohmann::json::array({"n1", "n3", "n4"}));
  CHECK(recs[0].evidence["batch_pool"] == nlohmann::json::array({"n2", "n5"}));
}

TEST_CASE("batch-online-colocation labels both pools before any selector names them",
          "[advice][patches][batch-online-colocation]") {
  testing::RunFixture fx = testing::colocationScenario();
  // A second service pod beside the first, and a node without services: the online pool is the
  // one node that holds both service pods, the batch pool the other.
  fx.nodes.push_back(makeNode("n2", 16, 64));
  fx.pods.push_back(makePod("web", "web-2", "n1", 2, 8, 0, ownedBy("ReplicaSet", "web-5d8")));
  fx.pods.push_back(makePod("etl", "daily-r1-b", "n2", 4, 8, 0,
                            [](model::Pod& p) { p.labels.set("dag-id", "daily"); }));
  const auto findings = fx.detect(analysis::BatchOnlineColocation());
  const auto recs = advice::recommend(findings, config::Config{}, *fx.cluster);
  REQUIRE(recs.size() == 1);
  const advice::Recommendation& rec = recs[0];
  CHECK(rec.evidence["online_pool"] == nlohmann::json::array({"n1"}));
  CHECK(rec.evidence["batch_pool"] == nlohmann::json::array({"n2"}));
  REQUIRE(rec.patches.size() == 4);
  CHECK(rec.patches[0].object.kind == "Node");
  CHECK(rec.patches[0].step == 1);
  CHECK(rec.patches[1].object.names == std::vector<std::string>{"n2"});
  for (std::size_t i = 2; i < rec.patches.size(); ++i) {
    CHECK(rec.patches[i].step == 2);  // the selectors come after the labels they name
  }
  REQUIRE(rec.patches[2].pods.has_value());
  CHECK(rec.patches[2].pods->match_labels ==
        std::vector<std::pair<std::string, std::string>>{{"dag-id", "daily"}});
  CHECK(rec.patches[3].object.kind == "Deployment");
  // The replay gets the same: both labels, both selectors, the services' rollout.
  REQUIRE(rec.changes.changes.size() == 5);
  CHECK(std::holds_alternative<replay::SetNodeLabel>(rec.changes.changes[0]));
  CHECK(std::holds_alternative<replay::SetNodeLabel>(rec.changes.changes[1]));
  const auto& pin = std::get<replay::SetNodeSelector>(rec.changes.changes[2]);
  CHECK(pin.value == "batch");
  CHECK(std::get<replay::SetNodeSelector>(rec.changes.changes[3]).value == "online");
  CHECK(std::holds_alternative<replay::RecreatePods>(rec.changes.changes[4]));
}
