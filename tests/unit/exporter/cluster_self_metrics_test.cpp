#include "exporter/cluster_self_metrics.h"

#include <catch2/catch.hpp>
#include <memory>

#include "exporter/metrics_handler.h"

namespace dagadvisor::exporter {
namespace {

std::string rendered(const std::shared_ptr<ClusterSelfMetrics>& self) {
  MetricsHandler handler;
  handler.add(self);
  auto text = handler.render();
  REQUIRE(text.ok());
  return *text;
}

TEST_CASE("a reload that renames the cluster leaves no self-metric under the old label",
          "[exporter]") {
  auto self = std::make_shared<ClusterSelfMetrics>("prod-eu", "1.2.3");
  self->current().recordCycleFailure("prometheus http://p:9090", "HTTP 502");
  CHECK_THAT(rendered(self), Catch::Contains("cluster=\"prod-eu\""));

  self->setCluster("prod-eu");  // unchanged: the same metrics go on
  CHECK_THAT(rendered(self),
             Catch::Contains("dagadvisor_cycles_total{cluster=\"prod-eu\",result=\"failure\"} 1"));

  self->setCluster("prod-eu-2");
  self->current().setConfigReloadSuccessful(true);
  const std::string text = rendered(self);
  CHECK_THAT(text, !Catch::Contains("cluster=\"prod-eu\""));
  CHECK_THAT(text,
             Catch::Contains("dagadvisor_config_last_reload_successful{cluster=\"prod-eu-2\"} 1"));
  CHECK_THAT(text, Catch::Contains("dagadvisor_build_info{cluster=\"prod-eu-2\""));
}

}  // namespace
}  // namespace dagadvisor::exporter
