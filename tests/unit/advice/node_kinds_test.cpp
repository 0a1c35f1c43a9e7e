// Advice of the node- and cluster-level kinds from typed evidence, built here by hand: what each
// adviser reads is a struct field, so a renamed field breaks the build, not the advice.
#include <catch2/catch.hpp>

#include "advice/recommender.h"
#include "analysis/detectors/batch_online_colocation.h"
#include "analysis/detectors/over_request.h"
#include "analysis/detectors/pool_mismatch.h"
#include "analysis/detectors/scheduling_latency.h"

using namespace dagadvisor;

namespace {

template <typename E>
analysis::Finding typedFinding(E evidence, std::string target, double impact) {
  analysis::Finding f = analysis::findingOf(std::move(evidence));
  f.severity = analysis::Severity::kWarning;
  f.target = std::move(target);
  f.summary = f.kind + " on " + f.target;
  f.impact = impact;
  return f;
}

// A workload of `pods` misplaced pods; the pool's room takes `fitting` of the `moves` pods that
// every finding moves there together (by default, all of this workload's).
analysis::Finding misplacedWorkload(const std::string& name, std::size_t pods, bool labelled,
                                    std::size_t moves = 0, std::size_t fitting = 0) {
  analysis::PoolMismatchEvidence e;
  e.namespace_ = "web";
  e.owner_kind = "ReplicaSet";
  e.owner_name = name + "-7d9f5";  // a Deployment's: the pod-template-hash suffix
  e.pod_role = "memory-optimized";
  e.pool_label = "node-type";
  e.suggested_pool = {"memory-optimized", "memory-optimized", labelled, 1, {"m1"}};
  e.pods.resize(pods);
  e.pod_count = pods;
  e.room.pool_moves = moves == 0 ? pods : moves;
  e.room.pool_moves_fitting = moves == 0 ? pods : fitting;
  e.room.pods_fitting = std::min(pods, e.room.pool_moves_fitting);
  return typedFinding(std::move(e), "workload/web/ReplicaSet/" + name, static_cast<double>(pods));
}

analysis::Finding colocatedNode(const std::string& node, std::vector<std::string> dags,
                                std::vector<analysis::ColocatedService> services) {
  analysis::BatchOnlineColocationEvidence e;
  e.node = node;
  e.dags = std::move(dags);
  e.services = std::move(services);
  return typedFinding(std::move(e), "node/" + node, 2);
}

analysis::Finding slowProfile(std::vector<analysis::SchedulingCause> causes) {
  analysis::SchedulingLatencyEvidence e;
  e.profile = "default-scheduler";
  e.p99_seconds = 40;
  e.causes = std::move(causes);
  return typedFinding(std::move(e), "profile/default-scheduler", 10);
}

}  // namespace

TEST_CASE("pool-mismatch advice lists the workloads of a pool largest first",
          "[advice][pool-mismatch]") {
  const auto recs = advice::recommend(
      {misplacedWorkload("small", 1, false, 4, 4), misplacedWorkload("big", 3, false, 4, 4)},
      config::Config{});
  REQUIRE(recs.size() == 1);
  const advice::Recommendation& rec = recs[0];
  CHECK(rec.kind == "pool-mismatch");
  CHECK(rec.evidence["pods"] == 4);
  CHECK(rec.evidence["workloads"][0]["owner_name"] == "big-7d9f5");
  CHECK_THAT(rec.title, Catch::StartsWith("2 workload(s) with 4 pod(s)"));
  CHECK_THAT(rec.action, Catch::StartsWith("Label the nodes of each inferred pool"));
  CHECK_THAT(rec.patch_yaml, Catch::Contains("kubectl patch node m1"));
  // The pool takes all four: a required nodeSelector is safe, and says why.
  CHECK_THAT(rec.patch_yaml, Catch::Contains("nodeSelector"));
  CHECK_THAT(rec.patch_yaml, Catch::Contains("has room for all 4 pod(s)"));
  CHECK(rec.impact_score == 4);
  CHECK(rec.patch_yaml.find("Deployment web/big") < rec.patch_yaml.find("Deployment web/small"));
}

TEST_CASE("pool-mismatch advice on a labelled pool patches no node", "[advice][pool-mismatch]") {
  const auto recs = advice::recommend({misplacedWorkload("cache", 2, true)}, config::Config{});
  REQUIRE(recs.size() == 1);
  CHECK_THAT(recs[0].action, Catch::StartsWith("Pool memory-optimized has room for all 2 pod(s)"));
  CHECK_THAT(recs[0].patch_yaml, !Catch::Contains("kubectl patch node"));
}

TEST_CASE("pool-mismatch advice sets no required affinity into a pool without room for all",
          "[advice][pool-mismatch]") {
  // 18 pods moved into memory-optimized, whose free room takes 3 of them.
  const auto recs = advice::recommend(
      {misplacedWorkload("cache", 3, true, 18, 3), misplacedWorkload("reports", 15, true, 18, 3)},
      config::Config{});
  REQUIRE(recs.size() == 1);
  const advice::Recommendation& rec = recs[0];
  CHECK_THAT(rec.patch_yaml, !Catch::Contains("requiredDuringScheduling"));
  CHECK_THAT(rec.action, Catch::Contains("has room for only 3 of the 18 pod(s) moved there"));
  CHECK_THAT(rec.action, Catch::Contains("a preferred node affinity (weight 100)"));
  CHECK(rec.evidence["pods_fitting"] == 3);
  CHECK(rec.impact_score == 3);
  CHECK_THAT(rec.impact, Catch::StartsWith("3 of 18 pod(s) fit"));
}

TEST_CASE("over-request advice patches the requests the evidence recommends",
          "[advice][over-request]") {
  analysis::OverRequestEvidence e;
  e.namespace_ = "web";
  e.owner_kind = "StatefulSet";
  e.owner_name = "db";
  e.recommended = {250, 512LL << 20, 0};
  e.reclaimable = {1750, 1LL << 30, 0};
  e.needed = {1750, 0, 0};  // pending pods lack CPU where it frees it, not memory
  const auto recs = advice::recommend(
      {typedFinding(analysis::OverRequestEvidence(e), "workload/web/StatefulSet/db", 1.75)},
      config::Config{});
  REQUIRE(recs.size() == 1);
  const advice::Recommendation& rec = recs[0];
  CHECK(rec.kind == "over-request");
  CHECK(rec.impact_score == Approx(1.75));
  CHECK(rec.impact ==
        "1750m CPU and 0 MiB freed where pending pods lack it (of 1750m CPU and 1024 MiB freed in "
        "all; measured use)");
  // Without the containers' names there is no patch: one by a guessed name would add a container.
  CHECK(rec.patch_yaml.empty());
  e.containers = {{"postgres", {2000, 1LL << 30, 0}}};
  const auto named = advice::recommend(
      {typedFinding(std::move(e), "workload/web/StatefulSet/db", 1.75)}, config::Config{});
  REQUIRE(named.size() == 1);
  CHECK_THAT(named[0].patch_yaml, Catch::Contains("kubectl patch StatefulSet db -n web"));
  CHECK_THAT(named[0].patch_yaml, Catch::Contains("- name: postgres"));
  CHECK_THAT(named[0].patch_yaml, Catch::Contains("cpu: \"250m\""));
  CHECK_THAT(named[0].patch_yaml, Catch::Contains("memory: \"512Mi\""));
}

TEST_CASE("colocation advice counts the DAGs and services over all nodes",
          "[advice][batch-online-colocation]") {
  const auto recs = advice::recommend(
      {colocatedNode("n1", {"etl/daily"}, {{"web", "ReplicaSet", "api-1", 2}}),
       colocatedNode("n2", {"etl/daily", "ml/train"},
                     {{"web", "ReplicaSet", "api-1", 1}, {"web", "StatefulSet", "db", 1}})},
      config::Config{});
  REQUIRE(recs.size() == 1);
  const advice::Recommendation& rec = recs[0];
  CHECK(rec.kind == "batch-online-colocation");
  CHECK(rec.instances == std::vector<std::string>{"node/n1", "node/n2"});
  CHECK_THAT(rec.title, Catch::StartsWith("2 busy node(s) shared by workflow tasks of 2 DAG(s) "
                                          "and 2 long-running service(s)"));
  CHECK(rec.evidence["dags"] == nlohmann::json::array({"etl/daily", "ml/train"}));
  CHECK(rec.evidence["services"] ==
        nlohmann::json::array({"web/ReplicaSet/api-1", "web/StatefulSet/db"}));
  CHECK(rec.impact_score == Approx(4));
}

TEST_CASE("scheduling-latency advice acts on the first cause", "[advice][scheduling-latency]") {
  using Kind = analysis::SchedulingCause::Kind;
  const auto slow = advice::recommend(
      {slowProfile({{Kind::kSlowExtensionPoint, "Filter", 0.3}, {Kind::kQueue, "active", 9}})},
      config::Config{});
  REQUIRE(slow.size() == 1);
  CHECK(slow[0].kind == "scheduling-latency");
  CHECK(slow[0].target == "profile/default-scheduler");
  CHECK_THAT(slow[0].action, Catch::StartsWith("One extension point is slow"));
  CHECK(slow[0].evidence["causes"][0]["extension_point"] == "Filter");
  const auto unknown = advice::recommend({slowProfile({})}, config::Config{});
  REQUIRE(unknown.size() == 1);
  CHECK_THAT(unknown[0].action, Catch::Contains("the cause cannot be named"));
}
