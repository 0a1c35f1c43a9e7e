#pragma once

#include "app/options.h"
#include "config/config.h"

namespace dagadvisor::app {

/// The daemon: one analysis every `analysis.interval`, published to the HTTP server
/// (API, /metrics, /healthz, /readyz). A failed cycle keeps the last good analysis, marked stale.
/// SIGTERM/SIGINT stop it (exit 0); SIGHUP or POST /-/reload re-read the config file, keeping the
/// old one when the new one is invalid.
int serve(const CliOptions& cli, config::Config config);

}  // namespace dagadvisor::app
