#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "common/clock.h"
#include "common/result.h"

namespace dagadvisor {

using Duration = std::chrono::milliseconds;

/// Parses Prometheus-style durations: "250ms", "30s", "5m", "1h30m", "2d", "1w". Units must
/// descend and not repeat (as Prometheus requires); a bare number is refused, since "30" is
/// ambiguous between seconds and minutes.
Result<Duration> parseDuration(std::string_view text);

/// The shortest Prometheus-style spelling: 90000 ms → "1m30s"; 0 → "0s".
std::string formatDuration(Duration d);

/// Parses a point in time as RFC 3339 ("2026-11-29T03:00:00Z", offsets and fractions allowed)
/// or as unix seconds ("1795856400", "1795856400.5").
Result<UnixSeconds> parseTimestamp(std::string_view text);

/// RFC 3339 in UTC with second precision: "2026-11-29T03:00:00Z".
std::string formatTimestamp(UnixSeconds t);

}  // namespace dagadvisor
