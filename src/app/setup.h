#pragma once

#include <optional>
#include <string>

#include "app/options.h"
#include "common/clock.h"
#include "common/result.h"
#include "config/config.h"
#include "sources/metrics_source.h"

namespace dagadvisor::app {

/// The config file (or the defaults) with the command line's overrides applied and validated.
/// On failure the message lists every error, one per line, each naming its field.
Result<config::Config> loadEffectiveConfig(const CliOptions& cli);

/// Applies the config's logging settings.
void configureLogging(const config::Config& config);

/// The data source the config names, and the time a snapshot was recorded for (the default
/// analysis time when replaying).
struct SourceSetup {
  sources::MetricsSourcePtr source;
  std::optional<UnixSeconds> recorded_at;
};
Result<SourceSetup> openSource(const config::Config& config);

/// `--at` if given, else the snapshot's time, else now.
Result<UnixSeconds> analysisTime(const CliOptions& cli, const SourceSetup& setup,
                                 const Clock& clock);

}  // namespace dagadvisor::app
