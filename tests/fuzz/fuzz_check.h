#pragma once

// What every fuzz target shares: the input as a string_view, and the check that turns a broken
// promise of a parser into a crash libFuzzer reports (and saves the input of).

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace dagadvisor::fuzz {

inline std::string_view asText(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

/// Aborts with `what` when `ok` is false: a parser broke a documented promise.
inline void check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "fuzz check failed: %s\n", what);
    std::abort();
  }
}

}  // namespace dagadvisor::fuzz
