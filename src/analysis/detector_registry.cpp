#include "analysis/detector_registry.h"

#include "analysis/detectors/gpu_node_hoarding.h"

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
