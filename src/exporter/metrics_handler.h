#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace prometheus {
class Collectable;
}

namespace dagadvisor::exporter {

/// Content type of the text exposition format we serve.
inline constexpr std::string_view kExpositionContentType =
    "text/plain; version=0.0.4; charset=utf-8";

/// Renders /metrics: prometheus-cpp's TextSerializer over the registered collectables (the
/// self-metrics registry and the report collector), in registration order. We serve it from our
/// own civetweb server, so there is no prometheus-cpp Exposer. Thread-safe after setup.
class MetricsHandler {
 public:
  /// Registers a collectable; call during setup, before the server starts.
  void add(std::shared_ptr<const prometheus::Collectable> collectable);

  /// The exposition text, or an error if a collectable or the serializer threw.
  Result<std::string> render() const;

 private:
  std::vector<std::shared_ptr<const prometheus::Collectable>> collectables_;
};

}  // namespace dagadvisor::exporter
