#pragma once

#include <ostream>

#include "app/options.h"
#include "config/config.h"

namespace dagadvisor::app {

/// `dagadvisor whatif --apply ID[,ID…]|all` on `--snapshot` or `--prometheus … --at …`: one
/// analysis, then the observed window replayed with the named recommendations applied together,
/// printed before/after per run and for the cluster (docs/whatif.md, "Predictions"). Exit 0,
/// 1 when the analysis fails, 2 for an id the analysis does not have or cannot replay.
int runWhatIfApply(const CliOptions& cli, const config::Config& config, std::ostream& out,
                   std::ostream& err);

}  // namespace dagadvisor::app
