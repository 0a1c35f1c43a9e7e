#include "analysis/packing.h"

#include <catch2/catch.hpp>
#include <vector>

using dagadvisor::analysis::Bins;
using dagadvisor::analysis::firstFitDecreasing;
using dagadvisor::analysis::kNoBin;
using dagadvisor::model::largerFirst;
using dagadvisor::model::ResourceVector;
using BinList = std::vector<std::size_t>;

TEST_CASE("firstFitDecreasing: largest first, each into the first bin with room", "[packing]") {
  // CPU only: 7 fits no bin; 4 goes to bin 0 (5), 3 and 2 to bin 1 (6), then 1 fills bin 0.
  const std::vector<ResourceVector> demands = {
      {2, 0, 0}, {4, 0, 0}, {7, 0, 0}, {3, 0, 0}, {1, 0, 0}};
  Bins bins{.room = {{5, 0, 0}, {6, 0, 0}}};
  CHECK(firstFitDecreasing(demands, largerFirst, bins) == BinList{1, 0, kNoBin, 1, 0});
  CHECK(bins.room == std::vector<ResourceVector>{{0, 0, 0}, {1, 0, 0}});
}

TEST_CASE("firstFitDecreasing: the order is the caller's, equal demands keep theirs", "[packing]") {
  // a, b, c by memory, not GPUs first: b goes before a (a GPU) and takes the memory a needs; c,
  // equal to b, comes after it and finds none left.
  const std::vector<ResourceVector> demands = {{1, 3, 1}, {1, 8, 0}, {1, 8, 0}};
  Bins bins{.room = {{2, 10, 1}}};
  const auto by_memory = [](const ResourceVector& a, const ResourceVector& b) {
    return a.memory_bytes > b.memory_bytes;
  };
  CHECK(firstFitDecreasing(demands, by_memory, bins) == BinList{kNoBin, 0, kNoBin});
}

TEST_CASE("firstFitDecreasing: a demand lands only in a bin it is admitted to", "[packing]") {
  const std::vector<ResourceVector> demands = {{4, 0, 0}, {2, 0, 0}};
  Bins bins{.room = {{8, 0, 0}, {8, 0, 0}}};
  bins.admits = [](std::size_t d, std::size_t b) {
    return d != 0 || b == 1;
  };
  CHECK(firstFitDecreasing(demands, largerFirst, bins) == BinList{1, 0});
}

TEST_CASE("firstFitDecreasing: with an empty bin, a demand no bin holds opens one", "[packing]") {
  const std::vector<ResourceVector> demands = {{3, 0, 0}, {3, 0, 0}, {3, 0, 0}, {9, 0, 0}};
  Bins bins{.empty_bin = ResourceVector{8, 0, 0}};
  CHECK(firstFitDecreasing(demands, largerFirst, bins) == BinList{0, 0, 1, kNoBin});
  CHECK(bins.room == std::vector<ResourceVector>{{2, 0, 0}, {5, 0, 0}});
}

TEST_CASE("firstFitDecreasing: a caller's own first fit, told of each landing in order",
          "[packing]") {
  // The last bin with room instead of the first.
  const std::vector<ResourceVector> demands = {{1, 0, 0}, {2, 0, 0}};
  Bins bins{.room = {{4, 0, 0}, {4, 0, 0}, {0, 0, 0}}};
  bins.first_fit = [&](std::size_t d, const std::vector<ResourceVector>& room) {
    for (std::size_t b = room.size(); b-- > 0;) {
      if (room[b].fits(demands[d])) {
        return b;
      }
    }
    return kNoBin;
  };
  std::vector<std::pair<std::size_t, std::size_t>> landings;
  bins.landed = [&](std::size_t d, std::size_t b) {
    landings.emplace_back(d, b);
  };
  CHECK(firstFitDecreasing(demands, largerFirst, bins) == BinList{1, 1});
  CHECK(landings == std::vector<std::pair<std::size_t, std::size_t>>{{1, 1}, {0, 1}});
}
