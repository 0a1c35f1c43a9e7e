#pragma once

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "analysis/evidence.h"

namespace dagadvisor::analysis {

enum class Severity { kInfo = 0, kWarning = 1, kCritical = 2 };

std::string_view severityName(Severity severity);

/// One problem a detector saw, with the numbers that prove it. Findings are facts; turning them
/// into advice (patches, wording, ranking) is the advice stage's job.
struct Finding {
  std::string kind;  // the detector's kind, e.g. "gpu-node-hoarding" (SPEC §4)
  Severity severity = Severity::kInfo;
  std::string target;        // what it is about, as "node/<name>", "run/<ns>/<run>", "pool/<name>"
  std::string summary;       // one line with the key numbers
  FindingEvidence evidence;  // the kind's evidence struct (see evidence.h)
  double impact = 0;         // kind-specific magnitude used for ranking (e.g. GPUs blocked)

  /// The evidence as the API renders it (documented per kind in docs/findings.md).
  nlohmann::json evidenceJson() const;

  /// The kind's evidence struct. Throws std::logic_error when the finding holds another kind's:
  /// a programming error (an adviser handed a finding of the wrong kind), never a data error.
  template <typename E>
  const E& evidenceAs() const {
    if (const E* typed = evidence.get<E>()) {
      return *typed;
    }
    throw std::logic_error("finding of kind '" + kind + "' read as '" + std::string(E::kKind) +
                           "' evidence");
  }
};

/// A finding of `evidence`'s kind carrying it; the detector fills in the rest.
template <typename E>
Finding findingOf(E evidence) {
  Finding finding;
  finding.kind = std::string(E::kKind);
  finding.evidence = FindingEvidence(std::move(evidence));
  return finding;
}

}  // namespace dagadvisor::analysis
