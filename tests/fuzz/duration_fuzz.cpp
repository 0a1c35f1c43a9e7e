// Prometheus-style durations (every timeout and window of the configuration): never throw, never
// negative, and formatDuration's spelling parses back to the same duration.

#include <string>

#include "common/duration.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace dagadvisor;
  const auto parsed = parseDuration(fuzz::asText(data, size));
  if (!parsed) {
    return 0;
  }
  fuzz::check(parsed->count() >= 0, "a duration is not negative");
  const auto again = parseDuration(formatDuration(*parsed));
  fuzz::check(again.ok() && *again == *parsed, "formatDuration parses back to the same duration");
  return 0;
}
