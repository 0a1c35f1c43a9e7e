#include "analysis/finding.h"

namespace dagadvisor::analysis {

std::string_view severityName(Severity severity) {
  switch (severity) {
    case Severity::kInfo:
      return "info";
    case Severity::kWarning:
      return "warning";
    case Severity::kCritical:
      return "critical";
  }
  return "info";
}

nlohmann::json Finding::evidenceJson() const {
  return evidence.toJson();
}

}  // namespace dagadvisor::analysis
