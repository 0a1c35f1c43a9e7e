#include "analysis/detectors/critical_path_priority.h"

#include <algorithm>
#include <catch2/catch.hpp>

#include "scenarios.h"

using namespace dagadvisor;

namespace {

std::vector<analysis::Finding> detectCriticalPathPriority(testing::RunFixture& fx,
                                                          const config::Config& config = {}) {
  return fx.detect(analysis::CriticalPathPriority(), config);
}

}  // namespace

TEST_CASE("pending critical-path tasks at the priority of slack-rich work are reported",
          "[detector][critical-path-priority]") {
  testing::RunFixture fx = testing::criticalPathScenario();
  const auto findings = detectCriticalPathPriority(fx);
  REQUIRE(findings.size() == 1);
  const analysis::Finding& f = findings[0];
  CHECK(f.kind == "critical-path-priority");
  CHECK(f.target == "run/etl/train/r1");
  CHECK(f.severity == analysis::Severity::kWarning);
  // Remaining work b (1000 s) → d (50 s) is critical; c (10 s) has 1050 − 60 = 990 s of slack.
  const auto& e = f.evidenceAs<analysis::CriticalPathPriorityEvidence>();
  CHECK(e.scope.namespace_ == "etl");
  CHECK(e.scope.dag == "train");
  CHECK(e.scope.run == "r1");
  const auto& tasks = e.critical_tasks;
  REQUIRE(tasks.size() == 2);
  CHECK(tasks[0].task == "b");
  CHECK(tasks[1].task == "d");
  CHECK(tasks[0].run == "etl/train/r1");
  CHECK(tasks[0].slack_seconds == Approx(0));
  REQUIRE(tasks[0].waiting_seconds);
  CHECK(*tasks[0].waiting_seconds == Approx(10'000));
  CHECK(e.critical_waiting_seconds == Approx(20'000));
  CHECK(f.impact == Approx(20'000));
  CHECK(e.slack_rich_pending == 1);
  REQUIRE(e.slack_rich_examples.size() == 1);
  CHECK(e.slack_rich_examples[0].task == "c");
  CHECK(e.slack_rich_examples[0].slack_seconds == Approx(990));
  // The API renders the same numbers under the documented keys.
  const auto json = f.evidenceJson();
  CHECK(json["run"] == "r1");
  CHECK(json["critical_tasks"][0]["task"] == "b");
  CHECK(json["critical_tasks"][0]["waiting_seconds"].get<double>() == Approx(10'000));
  CHECK(json["critical_waiting_seconds"].get<double>() == Approx(20'000));
  CHECK(json["slack_rich_pending"] == 1);
  CHECK(json["slack_rich_examples"][0]["slack_seconds"].get<double>() == Approx(990));
}

TEST_CASE("min_rich_slack holds at its edge", "[detector][critical-path-priority]") {
  testing::RunFixture fx = testing::criticalPathScenario();
  config::Config config;
  config.detectors.get<analysis::CriticalPathPrioritySettings>().min_rich_slack =
      config::Seconds(990);
  CHECK(detectCriticalPathPriority(fx, config).size() == 1);
  config.detectors.get<analysis::CriticalPathPrioritySettings>().min_rich_slack =
      config::Seconds(991);
  CHECK(detectCriticalPathPriority(fx, config).empty());
}

TEST_CASE("critical tasks already in the critical PriorityClass are not reported",
          "[detector][critical-path-priority]") {
  testing::RunFixture fx = testing::criticalPathScenario();
  for (model::Pod& pod : fx.pods) {
    if (pod.name == "r1-b" || pod.name == "r1-d") {
      pod.priority_class = "dag-critical-path";
    }
  }
  CHECK(detectCriticalPathPriority(fx).empty());
}

TEST_CASE("without an earlier run to estimate durations there is no finding",
          "[detector][critical-path-priority]") {
  testing::RunFixture fx = testing::criticalPathScenario();
  fx.runs.pop_front();
  fx.pods.erase(fx.pods.begin(), fx.pods.begin() + 4);
  for (std::size_t i = 0; i < fx.runs.front().tasks.size(); ++i) {
    fx.runs.front().tasks[i].pod = static_cast<model::PodId>(i);
  }
  CHECK(detectCriticalPathPriority(fx).empty());
}

TEST_CASE("critical-path-priority stays silent on a healthy cluster",
          "[detector][critical-path-priority]") {
  testing::RunFixture fx = testing::healthyScenario();
  CHECK(detectCriticalPathPriority(fx).empty());
}

namespace {

// criticalPathScenario with the pending run r1 moved to another DAG `dag` of namespace `ns`:
// its durations can then only come from the finished train/r0 through the namespace fallback.
testing::RunFixture copiedPipeline(const std::string& ns, const std::string& dag) {
  testing::RunFixture fx = testing::criticalPathScenario();
  fx.runs.back().namespace_ = ns;
  fx.runs.back().dag = dag;
  for (const model::Task& task : fx.runs.back().tasks) {
    fx.pods[task.pod].namespace_ = ns;
  }
  return fx;
}

}  // namespace

TEST_CASE("a copy of a pipeline under another DAG id borrows the durations of its namespace",
          "[detector][critical-path-priority]") {
  testing::RunFixture fx = copiedPipeline("etl", "train_eu");
  const auto findings = detectCriticalPathPriority(fx);
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].target == "run/etl/train_eu/r1");
  const auto& e = findings[0].evidenceAs<analysis::CriticalPathPriorityEvidence>();
  REQUIRE(e.critical_tasks.size() == 2);
  CHECK(e.critical_tasks[0].task == "b");
  CHECK(e.critical_tasks[1].task == "d");
  REQUIRE_FALSE(e.slack_rich_examples.empty());
  CHECK(e.slack_rich_examples[0].slack_seconds == Approx(990));
}

TEST_CASE("durations are not borrowed across namespaces", "[detector][critical-path-priority]") {
  testing::RunFixture fx = copiedPipeline("other-team", "train");
  CHECK(detectCriticalPathPriority(fx).empty());
}

TEST_CASE("the DAG's own history wins over the namespace's", "[detector][critical-path-priority]") {
  testing::RunFixture fx = testing::criticalPathScenario();
  // A third DAG of the namespace where c, not b, is the long task: were its 2000 s mixed into
  // train's estimates, c would be critical and b slack-rich.
  fx.addRun(
      "etl", "train_slow_c", "s0",
      {{"a", "w1", 0, 100}, {"b", "w1", 100, 110}, {"c", "w1", 100, 2100}, {"d", "w1", 2100, 2150}},
      {{0, 1}, {0, 2}, {1, 3}, {2, 3}});
  const auto findings = detectCriticalPathPriority(fx);
  REQUIRE(findings.size() == 1);
  const auto& e = findings[0].evidenceAs<analysis::CriticalPathPriorityEvidence>();
  REQUIRE_FALSE(e.critical_tasks.empty());
  REQUIRE_FALSE(e.slack_rich_examples.empty());
  CHECK(e.critical_tasks[0].task == "b");
  CHECK(e.slack_rich_examples[0].task == "c");
}

namespace {

analysis::FindingSink analyzeInto(testing::RunFixture& fx) {
  fx.build();
  analysis::FindingSink sink;
  analysis::CriticalPathPriority().analyze({*fx.cluster, fx.graphs, {}}, sink);
  return sink;
}

}  // namespace

TEST_CASE("critical-path-priority says why it gives no advice when durations are unknown",
          "[detector][critical-path-priority]") {
  SECTION("pending tasks but no finished task of the DAG or namespace") {
    testing::RunFixture fx = copiedPipeline("other-team", "train");
    analysis::FindingSink sink = analyzeInto(fx);
    CHECK(sink.findings().empty());
    CHECK(sink.noAdviceReason().find("estimate durations") != std::string::npos);
  }
  SECTION("no run at all") {
    testing::RunFixture fx;
    fx.nodes = {testing::makeNode("w1", 16, 64)};
    CHECK(analyzeInto(fx).noAdviceReason() == "no workflow runs were rebuilt");
  }
  SECTION("an estimated run is judged: a finding, no excuse") {
    testing::RunFixture fx = testing::criticalPathScenario();
    analysis::FindingSink sink = analyzeInto(fx);
    CHECK(sink.findings().size() == 1);
    CHECK(sink.noAdviceReason().empty());
  }
  SECTION("nothing pending is a real zero, not missing data") {
    testing::RunFixture fx = testing::criticalPathScenario();
    fx.runs.pop_back();
    analysis::FindingSink sink = analyzeInto(fx);
    CHECK(sink.findings().empty());
    CHECK(sink.noAdviceReason().empty());
  }
}

namespace {

// criticalPathScenario (b and d pend, 1 core each, waiting 10,000 s) with a GPU node g1 and
// `running` pods holding resources on w1 or g1.
testing::RunFixture withRunning(std::vector<model::Pod> running) {
  testing::RunFixture fx = testing::criticalPathScenario();
  fx.nodes.push_back(testing::makeNode("g1", 16, 64, 4));
  for (model::Pod& pod : running) {
    fx.pods.push_back(std::move(pod));
  }
  return fx;
}

// A pod of etl/other (a batch task) on `node` that started `age` seconds before the analysis.
model::Pod batchTask(const std::string& name, const std::string& node, double age,
                     std::int64_t gpus = 0) {
  return testing::makePod("etl", name, node, 1, 1, gpus, [&](model::Pod& p) {
    p.labels.set("dag-id", "other");
    p.started = 10'000 - age;
  });
}

// A copy: callers pass the detector's findings as a temporary, which ends with the call.
analysis::PreemptionExposure exposureIn(const std::vector<analysis::Finding>& findings) {
  REQUIRE(findings.size() == 1);
  return findings[0].evidenceAs<analysis::CriticalPathPriorityEvidence>().preemption;
}

}  // namespace

TEST_CASE("the evidence lists what a critical PriorityClass could preempt",
          "[detector][critical-path-priority]") {
  testing::RunFixture fx =
      withRunning({batchTask("trainer", "g1", 7200, 1),
                   testing::makePod("web", "api-1", "w1", 2, 4, 0,
                                    [](model::Pod& p) {
                                      testing::ownedBy("ReplicaSet", "api-7d9")(p);
                                      p.started = 0;
                                    }),
                   batchTask("young", "w1", 60)});
  const auto findings = detectCriticalPathPriority(fx);
  const analysis::PreemptionExposure& e = exposureIn(findings);
  CHECK(e.nodes == 2);
  CHECK(e.pods == 3);
  CHECK(e.gpu_pods == 1);
  CHECK(e.online_pods == 1);
  CHECK(e.not_batch_pods == 1);
  CHECK(e.long_running_pods == 0);  // 7,200 s and 10,000 s, against a 10,000 s wait
  CHECK_FALSE(e.acceptable);
  // The costliest first: the GPU pod, then the service, then the rest.
  REQUIRE(e.examples.size() == 3);
  CHECK(e.examples[0].pod == "trainer");
  CHECK(e.examples[0].gpu);
  CHECK(e.examples[0].batch);
  REQUIRE(e.examples[0].running_seconds);
  CHECK(*e.examples[0].running_seconds == Approx(7200));
  CHECK(e.examples[1].pod == "api-1");
  CHECK(e.examples[1].online);
  CHECK_FALSE(e.examples[1].batch);
  CHECK(e.examples[2].pod == "young");
  const auto json = findings[0].evidenceJson()["preemption"];
  CHECK(json["pods"] == 3);
  CHECK(json["gpu_pods"] == 1);
  CHECK(json["acceptable"] == false);
  CHECK(json["examples"][0]["pod"] == "trainer");
  CHECK(json["examples"][0]["running_seconds"].get<double>() == Approx(7200));
}

TEST_CASE("preemption is acceptable only for young batch pods without GPUs",
          "[detector][critical-path-priority]") {
  testing::RunFixture young =
      withRunning({batchTask("young", "w1", 60), batchTask("b2", "g1", 9'999)});
  CHECK(exposureIn(detectCriticalPathPriority(young)).acceptable);
  // Nothing to preempt: the class need not preempt either.
  testing::RunFixture idle = withRunning({});
  const auto& nothing = exposureIn(detectCriticalPathPriority(idle));
  CHECK(nothing.pods == 0);
  CHECK_FALSE(nothing.acceptable);
  // Run longer than the critical tasks have waited, or of unknown age: not acceptable.
  testing::RunFixture old = withRunning({batchTask("old", "w1", 10'001)});
  const auto& long_running = exposureIn(detectCriticalPathPriority(old));
  CHECK(long_running.long_running_pods == 1);
  CHECK_FALSE(long_running.acceptable);
  model::Pod unknown = batchTask("unknown", "w1", 0);
  unknown.started.reset();
  testing::RunFixture ageless = withRunning({unknown});
  CHECK_FALSE(exposureIn(detectCriticalPathPriority(ageless)).acceptable);
  // A GPU batch pod, however young.
  testing::RunFixture gpu = withRunning({batchTask("gpu", "g1", 60, 1)});
  CHECK_FALSE(exposureIn(detectCriticalPathPriority(gpu)).acceptable);
}

TEST_CASE(
    "pods at the critical class or a system class, and nodes the tasks do not fit, are "
    "not candidates",
    "[detector][critical-path-priority]") {
  model::Pod same = batchTask("same", "w1", 10'001);
  same.priority_class = "dag-critical-path";
  model::Pod system = batchTask("system", "w1", 10'001);
  system.priority_class = "system-node-critical";
  testing::RunFixture fx = withRunning({same, system});
  fx.nodes.push_back(testing::makeNode("tiny", 0.5, 64));  // the 1-core tasks do not fit
  fx.pods.push_back(batchTask("elsewhere", "tiny", 10'001));
  fx.nodes.push_back(
      testing::makeNode("cordoned", 16, 64, 0, [](model::Node& n) { n.unschedulable = true; }));
  fx.pods.push_back(batchTask("cordoned-pod", "cordoned", 10'001));
  const auto& e = exposureIn(detectCriticalPathPriority(fx));
  CHECK(e.nodes == 2);  // w1 and g1
  CHECK(e.pods == 0);
}

TEST_CASE("the exposure tells pods known to be below the class from pods of unknown priority",
          "[detector][critical-path-priority]") {
  model::Pod classless = batchTask("classless", "w1", 60);
  model::Pod named = batchTask("named", "g1", 60, 1);
  named.priority_class = "team-batch";
  testing::RunFixture fx = withRunning({classless, named});
  const auto findings = detectCriticalPathPriority(fx);
  const analysis::PreemptionExposure e = exposureIn(findings);
  CHECK(e.proposed_value == 100000);
  CHECK(e.pods == 2);
  CHECK(e.known_lower_pods == 1);       // no class: priority 0
  CHECK(e.unknown_priority_pods == 1);  // team-batch: its value is not exported
  REQUIRE(e.by_class.size() == 2);
  CHECK(e.by_class[0].pods == 1);
  const auto team = std::find_if(e.by_class.begin(), e.by_class.end(),
                                 [](const auto& k) { return k.priority_class == "team-batch"; });
  REQUIRE(team != e.by_class.end());
  CHECK(team->gpu_pods == 1);
  const auto json = findings[0].evidenceJson()["preemption"];
  CHECK(json["known_lower_pods"] == 1);
  CHECK(json["unknown_priority_pods"] == 1);
}

TEST_CASE("nodes the critical tasks' known tolerations keep them off hold no candidates",
          "[detector][critical-path-priority]") {
  testing::RunFixture fx =
      withRunning({batchTask("on-gpu", "g1", 60), batchTask("on-w1", "w1", 60)});
  for (model::Node& node : fx.nodes) {
    if (node.name == "g1") {
      node.taints.push_back({"dedicated", "gpu", "NoSchedule"});
    }
  }
  SECTION("tolerations not known: inferred, and no owner of theirs sat on g1: excluded") {
    const analysis::PreemptionExposure e = exposureIn(detectCriticalPathPriority(fx));
    CHECK(e.nodes == 1);
    CHECK(e.pods == 1);
  }
  SECTION("tolerations known to include the taint: g1 counts") {
    for (model::Pod& pod : fx.pods) {
      if (pod.node_name.empty()) {
        pod.tolerations = {{model::Toleration{"dedicated", "Exists", "", "", std::nullopt}}};
      }
    }
    const analysis::PreemptionExposure e = exposureIn(detectCriticalPathPriority(fx));
    CHECK(e.nodes == 2);
    CHECK(e.pods == 2);
  }
}

TEST_CASE("with the PriorityClass values listed, pods at or above the class are protected",
          "[detector][critical-path-priority]") {
  // dag-critical-path is at 100000: team-batch below it, team-online above, an unlisted class.
  model::Pod low = batchTask("low", "w1", 60);
  low.priority_class = "team-batch";
  model::Pod high = batchTask("high", "g1", 10'001, 1);
  high.priority_class = "team-online";
  model::Pod equal = batchTask("equal", "w1", 10'001);
  equal.priority_class = "team-equal";
  model::Pod unlisted = batchTask("unlisted", "w1", 60);
  unlisted.priority_class = "team-unlisted";
  testing::RunFixture fx = withRunning({low, high, equal, unlisted});
  fx.specs.priority_classes =
      std::vector<model::PriorityClass>{{"team-batch", 1000, "PreemptLowerPriority", false},
                                        {"team-online", 500000, "PreemptLowerPriority", false},
                                        {"team-equal", 100000, "Never", false}};
  const auto findings = detectCriticalPathPriority(fx);
  const analysis::PreemptionExposure e = exposureIn(findings);
  CHECK(e.values_known);
  CHECK(e.protected_pods == 2);  // team-online above, team-equal not strictly lower
  CHECK(e.pods == 2);
  CHECK(e.known_lower_pods == 1);
  CHECK(e.unknown_priority_pods == 1);
  CHECK(e.gpu_pods == 0);           // the GPU pod is protected by its class
  CHECK(e.long_running_pods == 0);  // so is the old one
  CHECK(e.acceptable);
  const auto batch = std::find_if(e.by_class.begin(), e.by_class.end(),
                                  [](const auto& k) { return k.priority_class == "team-batch"; });
  REQUIRE(batch != e.by_class.end());
  REQUIRE(batch->value);
  CHECK(*batch->value == 1000);
  const auto json = findings[0].evidenceJson()["preemption"];
  CHECK(json["values_known"] == true);
  CHECK(json["protected_pods"] == 2);
  const auto& listed = json["examples"];
  const auto low_json =
      std::find_if(listed.begin(), listed.end(), [](const auto& c) { return c["pod"] == "low"; });
  REQUIRE(low_json != listed.end());
  CHECK((*low_json)["priority"] == 1000);
  SECTION("a pod's own spec.priority, where the API listed it, comes before its class's") {
    fx.pods.push_back(batchTask("starting", "w1", 10'001));
    fx.pods.back().phase = model::PodPhase::kPending;  // bound, not yet running
    fx.pods.back().priority_class = "team-unlisted";
    fx.specs.pending_pods =
        std::vector<model::PendingPodSpec>{{"etl", "starting", 2'000'000, "team-unlisted", {}}};
    const analysis::PreemptionExposure own = exposureIn(detectCriticalPathPriority(fx));
    CHECK(own.protected_pods == 3);  // its 2,000,000 is above the class
    CHECK(own.pods == 2);
  }
  SECTION("without the values, the same pods are candidates of unknown priority") {
    fx.specs = {};
    const analysis::PreemptionExposure unknown = exposureIn(detectCriticalPathPriority(fx));
    CHECK_FALSE(unknown.values_known);
    CHECK(unknown.protected_pods == 0);
    CHECK(unknown.pods == 4);
    CHECK(unknown.unknown_priority_pods == 4);
    CHECK_FALSE(unknown.acceptable);  // a GPU pod and long-running ones may be below
  }
}
