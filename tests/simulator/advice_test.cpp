// The daemon's patches applied by the simulator: a hand-written recommendations document in the
// agreed format (tests/fixtures/simulator/gpu-hoarding-recommendations.json) changes what the
// simulated cluster does, and every patch's outcome is reported, the ones that matched nothing
// or whose variants all failed included.
#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "patches.h"
#include "report.h"
#include "sim_test_support.h"

using namespace dagadvisor::sim;
using namespace dagadvisor::sim::test;
using nlohmann::json;

namespace {

const std::string kFixture =
    std::string(SIM_SOURCE_DIR) + "/tests/fixtures/simulator/gpu-hoarding-recommendations.json";

Advice loadFixture(const std::vector<std::string>& ids) {
  std::string error;
  auto advice = loadAdvice(kFixture, ids, error);
  INFO(error);
  REQUIRE(advice);
  return *advice;
}

const json* entryFor(const History& h, const std::string& purposeStart) {
  for (const auto& e : h.applied) {
    if (e["purpose"].get<std::string>().rfind(purposeStart, 0) == 0) {
      return &e;
    }
  }
  return nullptr;
}

std::size_t nonGpuTaskPodsOnGpuNodes(const History& h) {
  std::size_t n = 0;
  for (const auto& p : h.pods) {
    n += p.node >= 0 && p.kind == PodKind::kDeployment &&
                 h.nodes[static_cast<std::size_t>(p.node)].capacity.gpu > 0
             ? 1
             : 0;
  }
  return n;
}

}  // namespace

TEST_CASE("tainting the GPU nodes and tolerating in the GPU tasks cuts GPU-pod pending time",
          "[simulator][advice]") {
  const Scenario s = loadShipped("gpu-hoarding");
  const History before = simulate(s, Policy::kBaseline);
  const History after = simulate(s, loadFixture({"rec-gpu-taint"}));
  const Figures b = computeFigures(before);
  const Figures a = computeFigures(after);
  INFO("GPU-pod pending " << b.gpuPodPendingSeconds << " s -> " << a.gpuPodPendingSeconds << " s");
  REQUIRE(b.gpuPodPendingSeconds > 600);  // the planted problem is there to be fixed
  CHECK(a.gpuPodPendingSeconds < 0.5 * b.gpuPodPendingSeconds);
  CHECK(a.meanMakespanHours < b.meanMakespanHours);
  CHECK(nonGpuTaskPodsOnGpuNodes(before) > 0);
  CHECK(nonGpuTaskPodsOnGpuNodes(after) == 0);
  for (const auto& n : after.nodes) {
    const bool tainted = std::any_of(n.taints.begin(), n.taints.end(),
                                     [](const Taint& t) { return t.key == "nvidia.com/gpu"; });
    CHECK(tainted == (n.capacity.gpu > 0));
  }
  // The training pods carry the toleration: the WorkflowTemplate's workflow-wide one (its
  // second variant, as the template had no list), set by the controller on every step's pod.
  for (const auto& p : after.pods) {
    if (p.kind == PodKind::kTask) {
      CHECK(std::any_of(p.scheduling.tolerations.begin(), p.scheduling.tolerations.end(),
                        [](const Toleration& t) { return t.key == "nvidia.com/gpu"; }));
    }
  }
  const json* pods = entryFor(after, "tolerate");
  REQUIRE(pods != nullptr);
  CHECK((*pods)["status"] == "applied");
  // Patched once, the WorkflowTemplate; every run submitted from it carries the toleration.
  CHECK((*pods)["applied_to"] == 1);
  CHECK((*pods)["applied_to_names"] == json::array({"ml/train-models"}));
  const json* taint = entryFor(after, "taint the GPU nodes");
  REQUIRE(taint != nullptr);
  CHECK((*taint)["applied_to"] == 3);
}

TEST_CASE(
    "a patch that matches nothing, one whose variants all fail and one that needs a value "
    "are reported",
    "[simulator][advice]") {
  const Scenario s = loadShipped("gpu-hoarding");
  const History h = simulate(s, loadFixture({"rec-stale"}));
  REQUIRE(h.applied.size() == 3);
  const json* ghost = entryFor(h, "a Deployment that is not");
  REQUIRE(ghost != nullptr);
  CHECK((*ghost)["status"] == "matched nothing");
  const json* guard = entryFor(h, "a guard");
  REQUIRE(guard != nullptr);
  CHECK((*guard)["status"] == "all variants failed");
  CHECK((*guard)["failed_on_names"] == json::array({"cpu-m5-000"}));
  const json* zone = entryFor(h, "pin the run");
  REQUIRE(zone != nullptr);
  CHECK((*zone)["status"] == "skipped");
  for (const auto& n : h.nodes) {
    CHECK(labelValue(n.labels, "never") == nullptr);
  }
  // Nothing was applied, so the cluster behaves as the baseline does.
  CHECK(computeFigures(h).gpuPodPendingSeconds ==
        Approx(computeFigures(simulate(s, Policy::kBaseline)).gpuPodPendingSeconds));
  // The outcome is in the ground truth as well as on the command line.
  CHECK(groundTruth(h)["applied_patches"].size() == 3);
}

TEST_CASE("labels on nodes and a strategic-merge node affinity steer a Deployment",
          "[simulator][advice]") {
  const Scenario s = loadShipped("gpu-hoarding");
  const History h = simulate(s, loadFixture({"rec-label-pool"}));
  for (const auto& e : h.applied) {
    INFO(e.dump());
    CHECK(e["status"] == "applied");
  }
  for (const auto& n : h.nodes) {
    const std::string* pool = labelValue(n.labels, "dagadvisor.io/pool");
    CHECK((pool != nullptr) == (n.capacity.gpu > 0));
  }
  for (const auto& p : h.pods) {
    if (p.ownerName.rfind("web-", 0) == 0 && p.node >= 0) {
      CHECK(h.nodes[static_cast<std::size_t>(p.node)].capacity.gpu == 0);
    }
  }
}

TEST_CASE("apply ids (--apply-ids) select recommendations, and an unknown id is an error",
          "[simulator][advice]") {
  std::string error;
  auto all = loadAdvice(kFixture, {}, error);
  REQUIRE(all);
  CHECK(all->patches.size() == 7);
  for (std::size_t i = 1; i < all->patches.size(); ++i) {
    CHECK(all->patches[i - 1]["step"].get<int>() <= all->patches[i]["step"].get<int>());
  }
  auto one = loadAdvice(kFixture, {"rec-label-pool"}, error);
  REQUIRE(one);
  CHECK(one->patches.size() == 2);
  CHECK_FALSE(loadAdvice(kFixture, {"rec-nope"}, error));
  CHECK(error.find("rec-nope") != std::string::npos);
}

TEST_CASE("the built-in remedies are patches in the same format", "[simulator][advice]") {
  const Scenario s = loadShipped("seed");
  std::string error;
  auto advice = adviceFrom(builtinRemedies(s), {}, error);
  INFO(error);
  REQUIRE(advice);
  const History h = simulate(s, Policy::kRemedied);
  CHECK(h.applied.size() == advice->patches.size());
  for (const auto& e : h.applied) {
    INFO(e.dump());
    CHECK(e["status"] == "applied");
  }
}

TEST_CASE("an Argo step's own tolerations replace the workflow-wide ones on its pods only",
          "[simulator][advice]") {
  const Scenario s = loadShipped("gpu-hoarding");
  Advice advice = loadFixture({"rec-gpu-taint"});
  const json step{{"key", "only-first-step"}, {"operator", "Exists"}};
  json first = advice.patches.front();  // the WorkflowTemplate's patch, as a step's template
  first["variants"] = json::array({json::array(
      {{{"op", "add"}, {"path", "/spec/templates/0/tolerations"}, {"value", {step}}}})});
  advice.patches.insert(advice.patches.begin() + 1, first);
  const History h = simulate(s, advice);
  const WorkflowSpec& w = s.workflows.front();
  const auto tolerates = [](const Pod& p, const std::string& key) {
    return std::any_of(p.scheduling.tolerations.begin(), p.scheduling.tolerations.end(),
                       [&](const Toleration& t) { return t.key == key; });
  };
  std::size_t first_step_pods = 0;
  for (const auto& p : h.pods) {
    if (p.kind != PodKind::kTask || p.ns != w.ns) {
      continue;
    }
    const bool is_first = p.name.find("-" + w.tasks.front().id + "-") != std::string::npos;
    first_step_pods += is_first ? 1 : 0;
    CHECK(tolerates(p, "only-first-step") == is_first);
    CHECK(tolerates(p, "nvidia.com/gpu") != is_first);  // the step's list replaced it
  }
  CHECK(first_step_pods > 1);  // in every run, not only the first
}
