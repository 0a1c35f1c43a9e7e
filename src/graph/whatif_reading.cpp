#include "graph/whatif_reading.h"

namespace dagadvisor::graph {

std::optional<WhatIfReading> readWhatIf(const RunGraph& run) {
  return readWhatIf(run.finished, run.makespan, run.whatif_makespan, run.whatif_basis);
}

std::optional<WhatIfReading> readWhatIf(bool finished, double elapsed, std::optional<double> whatif,
                                        WhatIfBasis basis) {
  if (!whatif) {
    return std::nullopt;
  }
  const double shorter_by = elapsed - *whatif;
  if (finished) {
    return shorter_by > 0 ? WhatIfReading{WhatIfVerdict::kGain, shorter_by}
                          : WhatIfReading{WhatIfVerdict::kNoGain, 0};
  }
  // A lower bound on the what-if bounds no gain: the real what-if may be longer than elapsed.
  if (basis == WhatIfBasis::kLowerBound) {
    return WhatIfReading{WhatIfVerdict::kLowerBound, 0};
  }
  return shorter_by > 0 ? WhatIfReading{WhatIfVerdict::kEstimatedGain, shorter_by}
                        : WhatIfReading{WhatIfVerdict::kEstimate, 0};
}

std::string_view whatIfVerdictName(WhatIfVerdict verdict) {
  switch (verdict) {
    case WhatIfVerdict::kGain:
      return "gain";
    case WhatIfVerdict::kEstimatedGain:
      return "estimated_gain";
    case WhatIfVerdict::kEstimate:
      return "estimate";
    case WhatIfVerdict::kLowerBound:
      return "lower_bound";
    case WhatIfVerdict::kNoGain:
      break;
  }
  return "no_gain";
}

}  // namespace dagadvisor::graph
