// RFC 3339 and unix-seconds timestamps (object times, Airflow dates, --at): never throw; the
// optional form agrees with the strict one; a time in years 0000–9999 formats (formatTimestamp)
// to text that parses back to its whole second; any accepted timestamp formats without UB.

#include <cmath>
#include <string>

#include "common/duration.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace dagadvisor;
  const std::string_view text = fuzz::asText(data, size);
  const auto strict = parseRfc3339(text);
  const auto optional = optionalRfc3339(text);
  fuzz::check(strict.ok() == optional.has_value() && (!strict || *strict == *optional),
              "optionalRfc3339 agrees with parseRfc3339");
  const auto any = parseTimestamp(text);
  fuzz::check(!strict || (any.ok() && *any == *strict), "parseTimestamp takes every RFC 3339");
  if (!any) {
    return 0;
  }
  fuzz::check(std::isfinite(*any), "a timestamp is finite");
  const std::string formatted = formatTimestamp(*any);
  constexpr double kYear0 = -62167219200;      // 0000-01-01T00:00:00Z
  constexpr double kYear10000 = 253402300800;  // 10000-01-01T00:00:00Z
  if (*any >= kYear0 && *any < kYear10000) {
    const auto again = parseRfc3339(formatted);
    fuzz::check(again.ok() && *again == std::floor(*any), "formatTimestamp parses back");
  }
  return 0;
}
