#pragma once

// The benchmark DAG, generated the same way by networkx_longest_path.py so both time one graph:
// splitmix64 draws; edge k joins two random distinct tasks, oriented low index → high index.

#include <cstdint>
#include <utility>
#include <vector>

#include "model/workflow.h"

namespace dagadvisor::bench {

inline std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

struct RandomDag {
  std::vector<model::Edge> edges;
  std::vector<double> duration;
};

inline RandomDag randomDag(std::uint32_t tasks, std::uint32_t edges, std::uint64_t seed = 42) {
  RandomDag out;
  std::uint64_t state = seed;
  out.duration.reserve(tasks);
  for (std::uint32_t t = 0; t < tasks; ++t) {
    out.duration.push_back(static_cast<double>(1 + splitmix64(state) % 100));
  }
  out.edges.reserve(edges);
  for (std::uint32_t k = 0; k < edges; ++k) {
    auto a = static_cast<model::TaskIndex>(splitmix64(state) % tasks);
    auto b = static_cast<model::TaskIndex>(splitmix64(state) % tasks);
    if (a != b) {
      out.edges.push_back(model::Edge{std::min(a, b), std::max(a, b)});
    }
  }
  return out;
}

}  // namespace dagadvisor::bench
