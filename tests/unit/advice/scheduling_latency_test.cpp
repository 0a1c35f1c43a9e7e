#include "analysis/detectors/scheduling_latency.h"

#include <catch2/catch.hpp>

#include "advice/recommender.h"

using namespace dagadvisor;

namespace {

analysis::Finding pendingQueue() {
  analysis::SchedulingLatencyEvidence e;
  e.profile = "pending pods";
  e.source = "pending_pods";
  e.p99_slo_seconds = 30;
  e.causes = {{analysis::SchedulingCause::Kind::kUnschedulable, "NodeResourcesFit", 7}};
  analysis::PendingWait wait;
  wait.pods = 7;
  wait.over_slo = 7;
  wait.gpu_pods = 7;
  wait.gpu_over_slo = 7;
  wait.oldest_seconds = 3120;
  wait.oldest = {{"ml", "train-ctr", 3120, 2}};
  e.pending = wait;
  analysis::Finding f = analysis::findingOf(std::move(e));
  f.severity = analysis::Severity::kWarning;
  f.target = "cluster/default/pending";
  f.summary = "7 pod(s) pending longer than the p99 SLO";
  f.impact = 3090;
  return f;
}

}  // namespace

TEST_CASE("a pending queue is advised with its measured wait and the kinds that diagnose it",
          "[advice][scheduling-latency]") {
  const auto recs = advice::recommend({pendingQueue()}, config::Config{});
  REQUIRE(recs.size() == 1);
  const advice::Recommendation& rec = recs[0];
  CHECK(rec.kind == "scheduling-latency");
  CHECK(rec.target == "cluster/default/pending");
  CHECK(rec.severity == analysis::Severity::kWarning);
  CHECK(rec.impact_score == Approx(3090));
  CHECK_THAT(rec.action, Catch::StartsWith("7 pod(s) have waited longer than the SLO and are "
                                           "still pending (7 requesting GPUs; the oldest for "
                                           "52 min, measured from kube_pod_created)"));
  CHECK_THAT(rec.action, Catch::Contains("capacity-shortfall"));
  // Then the action for the first cause, as for a slow histogram.
  CHECK_THAT(rec.action, Catch::Contains("Pods wait in the unschedulable queue"));
  CHECK_THAT(rec.impact, Catch::Contains("(measured)"));
  CHECK(rec.evidence["pending"]["oldest"][0]["pod"] == "train-ctr");
}
