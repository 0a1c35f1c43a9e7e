#pragma once

#include <vector>

#include "analysis/detector.h"
#include "config/config.h"

namespace dagadvisor::analysis {

/// Every built-in detector, in report order, whether enabled or not (docs and tests list them).
std::vector<DetectorPtr> allDetectors();

/// The detectors the configuration enables.
std::vector<DetectorPtr> enabledDetectors(const config::Detectors& settings);

}  // namespace dagadvisor::analysis
