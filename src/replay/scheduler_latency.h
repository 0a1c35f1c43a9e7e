#pragma once

#include "common/result.h"
#include "replay/replay.h"
#include "replay/replay_input.h"

namespace dagadvisor::replay {

/// Measures the scheduler's own delay (arrival → first attempt) over the window and sets each
/// replayed pod's queue_latency to it, so that a slow scheduler (a latency spike) slows the
/// replay as it slowed the cluster, before and after a change alike.
///
/// The observation mixes that delay with waiting for room: created → scheduled is both. A
/// replay without latency tells them apart: a pod it places at its first attempt had room, so
/// its observed queue time was the scheduler's delay. The delay of a time bucket (by arrival) is
/// the lower quartile over such pods arriving in it (at least 3, else the median of all of
/// them), and never more than a pod's own observed queue time. Fails when the replay without
/// latency does.
Result<void> estimateSchedulerLatency(ReplayInput& input, const SchedulerProfile& profile = {},
                                      double bucket_seconds = 60);

}  // namespace dagadvisor::replay
