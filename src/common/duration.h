#pragma once

#include <chrono>
#include <optional>
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

/// Parses RFC 3339 ("2026-11-29T03:00:00Z", "…T03:00:00.25+01:00"; 'T', 't' or ' ' between date and
/// time, 'Z' or 'z' or ±hh:mm): the one parser of the timestamps of users, Kubernetes, Argo,
/// Tekton and Airflow.
Result<UnixSeconds> parseRfc3339(std::string_view text);

/// parseRfc3339 for the optional timestamps of objects: nullopt when empty or malformed.
std::optional<UnixSeconds> optionalRfc3339(std::string_view text);

/// Parses a point in time as RFC 3339 (parseRfc3339) or as unix seconds ("1795856400",
/// "1795856400.5", at most 9999-12-31T23:59:59Z).
Result<UnixSeconds> parseTimestamp(std::string_view text);

/// RFC 3339 in UTC with second precision: "2026-11-29T03:00:00Z". Times outside the years
/// 0000–9999 are clamped to them, NaN formats as the epoch.
std::string formatTimestamp(UnixSeconds t);

}  // namespace dagadvisor
