#pragma once

#include <memory>
#include <mutex>
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
///
/// Rendering costs milliseconds on a big cluster, and what the collectables report only changes
/// when the daemon's loop changes it (a cycle, a reload), so the loop calls refresh() after each
/// change and scrapes are served the kept text: a scrape never renders.
class MetricsHandler {
 public:
  /// Registers a collectable; call during setup, before the server starts.
  void add(std::shared_ptr<const prometheus::Collectable> collectable);

  /// The exposition text, or an error if a collectable or the serializer threw.
  Result<std::string> render() const;

  /// Renders now and keeps the result for cached().
  void refresh();

  /// What the last refresh() rendered (rendered now when there was none yet).
  std::shared_ptr<const Result<std::string>> cached() const;

 private:
  std::vector<std::shared_ptr<const prometheus::Collectable>> collectables_;
  mutable std::mutex mutex_;
  mutable std::shared_ptr<const Result<std::string>> cached_;
};

}  // namespace dagadvisor::exporter
