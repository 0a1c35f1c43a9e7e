#pragma once

#include <cstdint>
#include <ostream>

#include "replay.h"

namespace dagadvisor::openb {

/// Writes what kube-state-metrics and kube-scheduler would expose for the replayed cluster, one
/// sample per series at `at` (unix seconds), as OpenMetrics lines for
/// `promtool tsdb create-blocks-from openmetrics`: nodes (info, labels, allocatable, the GPU taint
/// when pools are respected), pods (info, owner, phase, requests, tolerations, node selectors —
/// the pool when pools are respected —, times, unschedulable) and the
/// scheduler's pending gauge. No `# EOF`: several snapshots at later times may follow in one file.
void writeOpenMetrics(const ReplayResult& cluster, std::int64_t at, std::ostream& out);

}  // namespace dagadvisor::openb
