#include "analysis/detector_registry.h"

#include "analysis/detectors/capacity_shortfall.h"
#include "analysis/detectors/dag_stacking.h"
#include "analysis/detectors/gpu_node_hoarding.h"
#include "analysis/detectors/split_dependencies.h"
#include "analysis/detectors/stranded_resources.h"

namespace dagadvisor::analysis {
namespace {

// The one list. Adding a detector: its file, its test, docs/findings.md, and one line here.
struct Entry {
  DetectorPtr (*make)();
  bool (*enabled)(const config::Detectors&);
};

const Entry kDetectors[] = {
    {[]() -> DetectorPtr { return std::make_unique<GpuNodeHoarding>(); },
     [](const config::Detectors& d) {
       return d.gpu_node_hoarding.enabled;
     }},
    {[]() -> DetectorPtr { return std::make_unique<SplitDependencies>(); },
     [](const config::Detectors& d) {
       return d.split_dependencies.enabled;
     }},
    {[]() -> DetectorPtr { return std::make_unique<DagStacking>(); },
     [](const config::Detectors& d) {
       return d.dag_stacking.enabled;
     }},
    {[]() -> DetectorPtr { return std::make_unique<StrandedResources>(); },
     [](const config::Detectors& d) {
       return d.stranded_resources.enabled;
     }},
    {[]() -> DetectorPtr { return std::make_unique<CapacityShortfall>(); },
     [](const config::Detectors& d) {
       return d.capacity_shortfall.enabled;
     }},
};

}  // namespace

std::vector<DetectorPtr> allDetectors() {
  std::vector<DetectorPtr> out;
  for (const Entry& entry : kDetectors) {
    out.push_back(entry.make());
  }
  return out;
}

std::vector<DetectorPtr> enabledDetectors(const config::Detectors& settings) {
  std::vector<DetectorPtr> out;
  for (const Entry& entry : kDetectors) {
    if (entry.enabled(settings)) {
      out.push_back(entry.make());
    }
  }
  return out;
}

}  // namespace dagadvisor::analysis
