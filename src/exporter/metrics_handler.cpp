#include "exporter/metrics_handler.h"

#include <prometheus/collectable.h>
#include <prometheus/metric_family.h>
#include <prometheus/text_serializer.h>

#include <exception>

namespace dagadvisor::exporter {

void MetricsHandler::add(std::shared_ptr<const prometheus::Collectable> collectable) {
  if (collectable) {
    collectables_.push_back(std::move(collectable));
  }
}

Result<std::string> MetricsHandler::render() const {
  try {
    std::vector<prometheus::MetricFamily> families;
    for (const auto& collectable : collectables_) {
      auto more = collectable->Collect();
      families.insert(families.end(), std::make_move_iterator(more.begin()),
                      std::make_move_iterator(more.end()));
    }
    return prometheus::TextSerializer{}.Serialize(families);
  } catch (const std::exception& e) {
    return makeError(std::string("cannot render metrics: ") + e.what());
  }
}

void MetricsHandler::refresh() {
  auto rendered = std::make_shared<const Result<std::string>>(render());
  std::lock_guard lock(mutex_);
  cached_ = std::move(rendered);
}

std::shared_ptr<const Result<std::string>> MetricsHandler::cached() const {
  std::lock_guard lock(mutex_);
  if (!cached_) {
    cached_ = std::make_shared<const Result<std::string>>(render());
  }
  return cached_;
}

}  // namespace dagadvisor::exporter
