#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "advice/recommendation.h"
#include "analysis/detector.h"
#include "config/config.h"

namespace dagadvisor::advice {

/// Turns the findings of one kind into that kind's recommendations; empty in → empty out.
using Adviser = std::vector<Recommendation> (*)(const std::vector<const analysis::Finding*>&,
                                                const config::Config&);

/// Everything the daemon knows of one finding kind, in one row: the detector that finds it, the
/// switch that enables it (`detectors.<kind with _>.enabled`), and the adviser that answers it.
/// Its documentation is the section "## <kind>" of docs/findings.md; a test checks that every row
/// has both that section and its config section.
struct KindSpec {
  std::string_view kind;  // the detector's DetectorInfo::kind, e.g. "gpu-node-hoarding"
  analysis::DetectorPtr (*make_detector)();
  bool (*enabled)(const config::Detectors&);
  Adviser advise;
};

/// The one list of kinds, in priority order: detectors run and report in this order, and
/// recommendations of equal severity rank by it (impacts of different kinds are in different
/// units, GPUs or seconds, and are compared only within a kind). Adding a kind: its detector
/// (analysis/detectors/<kind>.{h,cpp}, with its evidence struct), its adviser
/// (advice/kinds/<kind>.{h,cpp}), its settings (config), its section in docs/findings.md, its
/// tests, and one line in kind_list.cpp.
std::span<const KindSpec> kindList();

/// Every kind's detector, in list order, whether enabled or not (docs and tests list them).
std::vector<analysis::DetectorPtr> allDetectors();

/// The detectors the configuration enables, in list order.
std::vector<analysis::DetectorPtr> enabledDetectors(const config::Detectors& settings);

}  // namespace dagadvisor::advice
