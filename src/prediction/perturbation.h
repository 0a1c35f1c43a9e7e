#pragma once

#include <cstdint>

#include "replay/replay_input.h"

namespace dagadvisor::prediction {

/// `input` with the run time of every pod the replay schedules scaled by a factor drawn
/// uniformly from [1 − spread, 1 + spread] by (seed, pod); fixed pods keep their observed
/// lifetimes. Seed 0 returns the input unchanged. A prediction replays several perturbations so
/// that its figures carry the spread that run-time noise alone gives them.
replay::ReplayInput perturbRunTimes(const replay::ReplayInput& input, std::uint32_t seed,
                                    double spread);

}  // namespace dagadvisor::prediction
