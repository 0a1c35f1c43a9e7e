#include "exporter/cluster_self_metrics.h"

#include <prometheus/registry.h>

#include <utility>

namespace dagadvisor::exporter {

ClusterSelfMetrics::ClusterSelfMetrics(std::string cluster, std::string version)
    : version_(std::move(version)), cluster_(std::move(cluster)) {
  registry_ = std::make_shared<prometheus::Registry>();
  self_ = std::make_unique<SelfMetrics>(registry_, cluster_, version_);
}

void ClusterSelfMetrics::setCluster(const std::string& cluster) {
  if (cluster == cluster_) {
    return;
  }
  auto registry = std::make_shared<prometheus::Registry>();
  auto self = std::make_unique<SelfMetrics>(registry, cluster, version_);
  std::lock_guard lock(mutex_);
  cluster_ = cluster;
  registry_ = std::move(registry);
  self_ = std::move(self);
}

std::vector<prometheus::MetricFamily> ClusterSelfMetrics::Collect() const {
  std::shared_ptr<prometheus::Registry> registry;
  {
    std::lock_guard lock(mutex_);
    registry = registry_;
  }
  return registry->Collect();
}

}  // namespace dagadvisor::exporter
