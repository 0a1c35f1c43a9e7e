#pragma once

#include <cstdint>
#include <string_view>

namespace dagadvisor {

/// The hash of no bytes. Not FNV's published offset basis (14695981039346656037): that number
/// with its last digit lost, as the first hash here was written. It stays, since recommendation
/// ids already made from it must not change.
inline constexpr std::uint64_t kFnv1aBasis = 1469598103934665603ULL;

/// The 64-bit FNV-1a hash of `bytes`, continued from `hash` (so several strings hash as one).
/// Unlike std::hash it is the same on every platform, library and run: recommendation ids and the
/// replay's tie-breaks are made from it and must not change between builds.
constexpr std::uint64_t fnv1a(std::string_view bytes, std::uint64_t hash = kFnv1aBasis) {
  constexpr std::uint64_t kPrime = 1099511628211ULL;
  for (const unsigned char c : bytes) {
    hash = (hash ^ c) * kPrime;
  }
  return hash;
}

}  // namespace dagadvisor
