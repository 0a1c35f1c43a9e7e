#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace dagadvisor::analysis {

enum class Severity { kInfo = 0, kWarning = 1, kCritical = 2 };

std::string_view severityName(Severity severity);

/// One problem a detector saw, with the numbers that prove it. Findings are facts; turning them
/// into advice (patches, wording, ranking) is the advice stage's job.
struct Finding {
  std::string kind;  // the detector's kind, e.g. "gpu-node-hoarding" (SPEC §4)
  Severity severity = Severity::kInfo;
  std::string target;   // what it is about, as "node/<name>", "run/<ns>/<run>", "pool/<name>"
  std::string summary;  // one line with the key numbers
  nlohmann::json evidence =
      nlohmann::json::object();  // kind-specific, documented in docs/findings.md
  double impact = 0;             // kind-specific magnitude used for ranking (e.g. GPUs blocked)
};

}  // namespace dagadvisor::analysis
