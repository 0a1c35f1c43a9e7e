#pragma once

// Token-level helpers of the exposition parser: names, numbers, type keywords and family
// suffixes. Internal to src/sources/exposition/.

#include <cstddef>
#include <optional>
#include <string_view>

#include "sources/exposition/exposition_parser.h"

namespace dagadvisor::sources::exposition::detail {

/// Length of the metric name ([a-zA-Z_:][a-zA-Z0-9_:]*) at the start of `text`; 0 if none.
std::size_t scanMetricName(std::string_view text);

/// Length of the label name ([a-zA-Z_][a-zA-Z0-9_]*) at the start of `text`; 0 if none.
std::size_t scanLabelName(std::string_view text);

/// Number of spaces and tabs at the start of `text`, which are removed.
std::size_t skipBlanks(std::string_view& text);

/// Removes and returns the token up to the next space or tab (or the end).
std::string_view takeToken(std::string_view& text);

/// Whether every byte of `text` is ASCII; the parser checks each line once with it so that
/// only the rare lines with other bytes pay for full UTF-8 validation.
bool isAscii(std::string_view text);

/// Whether `text` is valid UTF-8 (no overlong forms, surrogates or code points past U+10FFFF);
/// label values must be, or the JSON written from them later would be invalid.
bool isValidUtf8(std::string_view text);

/// A sample value: a Go-style float, including NaN, Inf, +Inf and -Inf in any case.
bool parseSampleValue(std::string_view text, double& out);

/// A 0.0.4 timestamp (integer milliseconds), converted to unix seconds.
bool parseMillisTimestamp(std::string_view text, double& seconds);

/// An OpenMetrics timestamp (finite, possibly fractional, seconds).
bool parseSecondsTimestamp(std::string_view text, double& seconds);

/// The type keyword of a `# TYPE` line ("untyped" and "unknown" are both kUnknown).
std::optional<MetricType> parseMetricType(std::string_view keyword);

/// Whether the sample `name` is a series of the family `family` of type `type`, i.e. equal to
/// it or the family name plus one of the suffixes that type allows.
bool belongsToFamily(std::string_view name, std::string_view family, MetricType type);

}  // namespace dagadvisor::sources::exposition::detail
