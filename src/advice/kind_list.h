#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "advice/recommendation.h"
#include "analysis/detector.h"
#include "config/config.h"
#include "model/cluster.h"

namespace dagadvisor::advice {

/// Turns the findings of one kind into that kind's recommendations; empty in → empty out. The
/// cluster snapshot the findings come from names the objects and pods its patches change.
using Adviser = std::vector<Recommendation> (*)(const std::vector<const analysis::Finding*>&,
                                                const config::Config&,
                                                const model::ClusterSnapshot&);

/// Everything the daemon knows of one finding kind, in one row: the detector that finds it, its
/// settings section (`detectors.<kind with _>`, declared beside the detector), and the adviser
/// that answers it. Its documentation is the section "## <kind>" of docs/findings.md; a test
/// checks that every row has that section, its settings table and its example-file section.
struct KindSpec {
  std::string_view kind;  // the detector's DetectorInfo::kind, e.g. "gpu-node-hoarding"
  analysis::DetectorPtr (*make_detector)();
  void (*add_settings)(config::DetectorSettings&);  // adds the section at its defaults
  bool (*enabled)(const config::DetectorSettings&);
  Adviser advise;
};

/// The one list of kinds, in priority order: detectors run and report in this order, and
/// recommendations of equal severity rank by it (impacts of different kinds are in different
/// units, GPUs or seconds, and are compared only within a kind). Adding a kind touches six files
/// and this list: its detector (analysis/detectors/<kind>.{h,cpp}, with its evidence and
/// settings structs), its adviser (advice/kinds/<kind>.{h,cpp}), its section in
/// docs/findings.md and in config/dagadvisor.example.yaml; then its tests, and one line in
/// kind_list.cpp.
std::span<const KindSpec> kindList();

/// Every kind's detector, in list order, whether enabled or not (docs and tests list them).
std::vector<analysis::DetectorPtr> allDetectors();

/// The detectors the configuration enables, in list order.
std::vector<analysis::DetectorPtr> enabledDetectors(const config::DetectorSettings& settings);

/// Config{} with every kind's settings section added at its defaults: what a configuration file
/// loads onto (config::loadConfigFile), and what --print-default-config prints.
config::Config defaultConfig();

}  // namespace dagadvisor::advice
