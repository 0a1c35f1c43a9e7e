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
  // The training pods carry the toleration (the first variant failed nowhere: admission had
  // already given every pod a toleration list).
  for (const auto& p : after.pods) {
    if (p.kind == PodKind::kTask) {
      CHECK(std::any_of(p.scheduling.tolerations.begin(), p.scheduling.tolerations.end(),
                        [](const Toleration& t) { return t.key == "nvidia.com/gpu"; }));
    }
  }
  const json* pods = entryFor(after, "tolerate");
  REQUIRE(pods != nullptr);
  CHECK((*pods)["status"] == "applied");
  CHECK((*pods)["applied_to"].get<std::size_t>() ==
        static_cast<std::size_t>(
            std::count_if(after.pods.begin(), after.pods.end(),
                          [](const Pod& p) { return p.kind == PodKind::kTask; })));
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

TEST_CASE("--apply-ids selects recommendations, and an unknown id is an error",
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
