#include "ingestion/query_catalog.h"

#include <catch2/catch.hpp>
#include <string>

namespace dagadvisor::ingestion {
namespace {

// The liveness test compares each pod's newest sample (plus its slack) with the newest of all:
// aggregated to the pod before the comparison, Prometheus compares three labels a pod instead of
// kube_pod_info's ten. It stays on kube_pod_info, the family pod_info's lookback and pod_seen's
// newest sample read (with kube_pod_created a window read kept a pod a full read dropped).
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

// Of a pod's five phase series only the current one (value 1) reaches the aggregation.
TEST_CASE("pod_phase filters the current phase before aggregating", "[ingestion][catalog]") {
  const config::PrometheusSource settings;
  const std::string phase = QueryCatalog(settings).get(QueryId::kPodPhase).promql;
  CHECK(phase == "max by (namespace, pod, uid, phase) (last_over_time(" +
                     settings.metrics.pod_phase + "{}[6h5m]) == 1)");
}

}  // namespace
}  // namespace dagadvisor::ingestion
