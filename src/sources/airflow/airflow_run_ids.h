#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace dagadvisor::sources {

/// Whether `label` is what Airflow's `make_safe_label_value` makes of the run id `raw` for a
/// pod label: `raw` itself when it is already a label value of at most 63 characters, else its
/// label-safe characters (leading/trailing non-alphanumerics and everything outside
/// `[A-Za-z0-9_.-]` dropped) cut to 53, then "-" and the first 9 hex digits of md5(raw). The
/// digest is only checked for its shape, so two raw ids alike in their first 53 safe characters
/// both match (the caller treats that as ambiguous).
bool isSafeLabelOf(std::string_view label, std::string_view raw);

/// Whether `label` ends as Airflow's changed values do ("-" and 9 hex digits): only such a label
/// can stand for a run id other than itself.
bool hasSafeLabelHash(std::string_view label);

/// The `[from, to]` window (RFC 3339, UTC) of logical dates to list when looking up a run id:
/// Airflow's generated ids ("scheduled__2024-05-01T00:00:00+00:00", "manual__…") carry the
/// logical date, and their sanitised form keeps its `YYYY-MM-DD`; the window is the day before
/// to the day after it, which covers any time zone. nullopt when the id holds no such date.
std::optional<std::pair<std::string, std::string>> logicalDateWindow(std::string_view run_id);

}  // namespace dagadvisor::sources
