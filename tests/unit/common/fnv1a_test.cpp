#include "common/fnv1a.h"

#include <catch2/catch.hpp>

using dagadvisor::fnv1a;

TEST_CASE("fnv1a: FNV-1a 64, from the basis ids have always used", "[fnv1a]") {
  // The published test vector, from the published offset basis: the algorithm is FNV-1a.
  CHECK(fnv1a("a", 14695981039346656037ULL) == 0xaf63dc4c8601ec8cULL);
  // Recommendation ids and replay tie-breaks start from the project's own basis.
  CHECK(fnv1a("") == dagadvisor::kFnv1aBasis);
  CHECK(fnv1a("") == 1469598103934665603ULL);
}

TEST_CASE("fnv1a: a hash continued from another is the hash of both strings", "[fnv1a]") {
  CHECK(fnv1a("def", fnv1a("abc")) == fnv1a("abcdef"));
  CHECK(fnv1a("ab") != fnv1a("ba"));
  static_assert(fnv1a("x") == fnv1a("x", dagadvisor::kFnv1aBasis));
}
