#include "model/resources.h"

#include <catch2/catch.hpp>

using dagadvisor::model::ResourceVector;

TEST_CASE("ResourceVector: largest first is GPUs, then CPU, then memory", "[resources]") {
  using dagadvisor::model::largerFirst;
  CHECK(largerFirst({0, 0, 1}, {64000, 1 << 30, 0}));  // a GPU outweighs any CPU and memory
  CHECK(largerFirst({2000, 0, 0}, {1000, 1 << 30, 0}));
  CHECK(largerFirst({1000, 2, 0}, {1000, 1, 0}));
  CHECK_FALSE(largerFirst({1000, 1, 0}, {1000, 1, 0}));
  CHECK(ResourceVector{1, 2, 3}.sizeKey() == ResourceVector::SizeKey{3, 1, 2});
}

TEST_CASE("ResourceVector: nonNegative clamps each part at zero", "[resources]") {
  CHECK(dagadvisor::model::nonNegative({-5, 7, -1}) == ResourceVector{0, 7, 0});
}
