#include "ingestion/query_catalog.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "ingestion/cluster_builder.h"

namespace dagadvisor::ingestion {
namespace {

sources::SampleView sample(const std::vector<sources::LabelView>& labels) {
  sources::SampleView out;
  out.labels = labels.data();
  out.label_count = labels.size();
  out.value = 1;
  return out;
}

// The liveness test compares each pod's newest sample (plus its slack) with the newest of all:
// aggregated to the pod before the comparison, Prometheus compares three labels a pod instead of
// kube_pod_info's ten. Without staleness markers it stays on kube_pod_info, the family pod_info's
// lookback and pod_seen's newest sample read (with kube_pod_created a window read kept a pod a full
// read dropped).
TEST_CASE("the liveness test aggregates each pod before comparing it with the newest sample",
          "[ingestion][catalog]") {
  const config::PrometheusSource settings;
  const std::string info = settings.metrics.pod_info + "{}";
  const std::string live = QueryCatalog(settings).get(QueryId::kPodLive).promql;
  CHECK(live == "max by (namespace, pod, uid) (timestamp(" + info + ") + 450 / count_over_time(" +
                    info + "[300s])) >= scalar(max(timestamp(" + info + ")))");
  const std::string gone = podGoneQuery(settings, config::Seconds(420)).promql;
  CHECK(gone == "last_over_time(" + info + "[7m]) unless on (namespace, pod, uid) " + live);
}

// PodFactKey::kUid: every pod fact but pod_info is aggregated by uid alone (what names the pod
// comes once, from pod_info); pod_gone's live side still matches on the whole pod key.
TEST_CASE("with PodFactKey::kUid the pod facts are asked by uid, pod_info by the whole key",
          "[ingestion][catalog]") {
  const config::PrometheusSource settings;
  const QueryCatalog by_uid(settings, PodFactKey::kUid);
  const QueryCatalog whole(settings);
  for (const QueryId id : {QueryId::kPodLive, QueryId::kPodPhase, QueryId::kPodRequests,
                           QueryId::kPodOwner, QueryId::kPodCreated, QueryId::kPodScheduled,
                           QueryId::kPodStarted, QueryId::kPodFinished}) {
    INFO(by_uid.get(id).name);
    CHECK(by_uid.get(id).promql.find("max by (uid") != std::string::npos);
    CHECK(by_uid.get(id).promql.find("namespace, pod") == std::string::npos);
    CHECK(whole.get(id).promql.find("max by (namespace, pod, uid") != std::string::npos);
  }
  CHECK(by_uid.get(QueryId::kPodInfo).promql == whole.get(QueryId::kPodInfo).promql);
  CHECK(by_uid.get(QueryId::kPodLabels).promql == whole.get(QueryId::kPodLabels).promql);
  CHECK(podPhaseNowQuery(settings, PodFactKey::kUid).promql.find("max by (uid, phase)") !=
        std::string::npos);
  CHECK(podGoneQuery(settings, config::Seconds(420)).promql.find("max by (namespace, pod, uid)") !=
        std::string::npos);
}

// pod_annotations asks only the keys the adapters read: in the catalog each key's series apart
// (only the pods with one are selected), of a uid list each pod's series once; every annotation
// without keys (a recording).
TEST_CASE("pod_annotations asks the annotations read, selecting only the pods that have one",
          "[ingestion][catalog]") {
  config::PrometheusSource settings;
  settings.selector = R"(cluster="a")";
  const std::string family = settings.metrics.pod_annotations;
  const AnnotationKeys keys = std::vector<std::string>{"dag_id", "workflow_dependencies"};
  const std::string by = "max by (uid, annotation_dag_id, annotation_workflow_dependencies) (";
  CHECK(QueryCatalog(settings, PodFactKey::kUid, keys).get(QueryId::kPodAnnotations).promql ==
        by + "last_over_time(" + family + R"({annotation_dag_id!="", cluster="a"}[6h5m]) or )" +
            "last_over_time(" + family +
            R"({annotation_workflow_dependencies!="", cluster="a"}[6h5m])))");
  const config::PrometheusSource listed = withSelector(settings, R"(uid=~"u1|u2")");
  CHECK(podAnnotationsOfPodsQuery(listed, PodFactKey::kUid, keys).promql ==
        by + "last_over_time(" + family + R"({cluster="a", uid=~"u1|u2"}[6h5m])))");
  const std::string every = "last_over_time(" + family + R"({cluster="a"}[6h5m]))";
  CHECK(QueryCatalog(settings).get(QueryId::kPodAnnotations).promql == every);
  CHECK(QueryCatalog(settings, PodFactKey::kUid, std::vector<std::string>{})
            .get(QueryId::kPodAnnotations)
            .promql == every);
  CHECK(podAnnotationsOfPodsQuery(settings, PodFactKey::kUid, std::nullopt).promql == every);
}

TEST_CASE("staleness_markers_seen counts the series that left the instant selection early",
          "[ingestion][catalog]") {
  config::PrometheusSource settings;
  settings.selector = R"(cluster="a")";
  const std::string created = settings.metrics.pod_created + R"({cluster="a"})";
  CHECK(stalenessMarkersSeenQuery(settings).promql ==
        "count (last_over_time(" + created + "[290s]) unless " + created + ")");
}

// Where the TSDB writes staleness markers a deleted pod's series ends with one, in every family
// at the same scrape: an instant selection of the smallest family (kube_pod_created, three labels
// a pod) is the liveness test, one selection instead of three of kube_pod_info.
TEST_CASE("with staleness markers liveness is an instant selection", "[ingestion][catalog]") {
  config::PrometheusSource settings;
  settings.staleness_markers = true;
  const std::string created = settings.metrics.pod_created + "{}";
  const std::string live = QueryCatalog(settings).get(QueryId::kPodLive).promql;
  CHECK(live == "max by (namespace, pod, uid) (" + created + ")");
  // `unless` matches many to many: the live side needs no aggregation.
  CHECK(podGoneQuery(settings, config::Seconds(420)).promql ==
        "last_over_time(" + created + "[7m]) unless on (namespace, pod, uid) " + created);
  // A window asks pod_gone and pod_changed's creation part in one: the pods seen in the window
  // but the live ones created before it.
  CHECK(podCreatedOrGoneQuery(settings, config::Seconds(420)).promql ==
        "last_over_time(" + created + "[7m]) unless on (namespace, pod, uid) (" + created +
            " <= time() - 420)");
  const std::string finished =
      podChangesQuery(settings, config::Seconds(420), PodChangeParts::kFinished).promql;
  CHECK(finished.find(settings.metrics.pod_completion_time) != std::string::npos);
  CHECK(finished.find(settings.metrics.pod_created) == std::string::npos);
  // The rest of the catalog does not depend on it.
  config::PrometheusSource without = settings;
  without.staleness_markers = false;
  const QueryCatalog with_markers(settings);
  const QueryCatalog without_markers(without);
  for (std::size_t i = 0; i < kQueryCount; ++i) {
    const auto id = static_cast<QueryId>(i);
    CHECK((id == QueryId::kPodLive) ==
          (with_markers.get(id).promql != without_markers.get(id).promql));
  }
}

// Of a pod's five phase series only the current one (value 1) reaches the aggregation.
TEST_CASE("pod_phase filters the current phase before aggregating", "[ingestion][catalog]") {
  const config::PrometheusSource settings;
  const std::string phase = QueryCatalog(settings).get(QueryId::kPodPhase).promql;
  CHECK(phase == "max by (namespace, pod, uid, phase) (last_over_time(" +
                     settings.metrics.pod_phase + "{phase!=\"Unknown\"}[6h5m]) == 1)");
}

// The Unknown series is not selected: a live pod with no phase answered is Unknown, as the
// answer with it would have said.
TEST_CASE("a pod whose phase pod_phase does not answer is Unknown", "[ingestion][catalog]") {
  ClusterBuilder builder(1000);
  builder.add(QueryId::kNodeAllocatable, sample({{"node", "n1"}, {"resource", "cpu"}}));
  const std::vector<sources::LabelView> pod = {
      {"namespace", "ns"}, {"pod", "p"}, {"uid", "u"}, {"node", "n1"}};
  builder.add(QueryId::kPodInfo, sample(pod));
  builder.add(QueryId::kPodLive, sample(pod));
  const model::ClusterSnapshot snapshot = std::move(builder).build();
  REQUIRE(snapshot.pods().size() == 1);
  CHECK(snapshot.pods()[0].phase == model::PodPhase::kUnknown);
}

}  // namespace
}  // namespace dagadvisor::ingestion
