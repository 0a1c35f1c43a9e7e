#pragma once

#include <optional>
#include <string_view>

#include "graph/run_graph.h"

namespace dagadvisor::graph {

/// What a run's HEFT what-if makespan says next to the run's own time, told honestly: a gain
/// only where the comparison holds. An unfinished run has no makespan yet, only the time elapsed
/// so far, and its what-if charges estimated run times for the tasks still to finish.
enum class WhatIfVerdict {
  /// Finished run, what-if shorter: the gain is makespan − what-if (observed run times, HEFT's
  /// placement; modelled on measured durations).
  kGain,
  /// Finished run, what-if not shorter: the observed schedule was at least as good as HEFT's.
  kNoGain,
  /// Unfinished run with estimated run times whose what-if is already shorter than the elapsed
  /// time: the run's makespan will be at least the elapsed time, so the gain is at least
  /// elapsed − what-if, as far as the estimates hold.
  kEstimatedGain,
  /// Unfinished, estimated: the what-if is an estimate of the whole run's makespan under HEFT;
  /// there is no makespan yet to compare it with, so no gain is claimed.
  kEstimate,
  /// Unfinished, and some tasks had no estimate: the what-if makespan is at least this value,
  /// nothing is claimed about a gain.
  kLowerBound,
};

/// A verdict and the gain it carries (0 unless kGain or kEstimatedGain).
struct WhatIfReading {
  WhatIfVerdict verdict = WhatIfVerdict::kNoGain;
  double gain_seconds = 0;
};

/// Reads the what-if of `run` against its makespan (finished) or elapsed time (unfinished);
/// nullopt when the run has no what-if.
std::optional<WhatIfReading> readWhatIf(const RunGraph& run);

/// The same from the figures alone: `elapsed` is the makespan of a finished run.
std::optional<WhatIfReading> readWhatIf(bool finished, double elapsed, std::optional<double> whatif,
                                        WhatIfBasis basis);

/// "gain", "no_gain", "estimated_gain", "estimate" or "lower_bound": the API's words.
std::string_view whatIfVerdictName(WhatIfVerdict verdict);

}  // namespace dagadvisor::graph
