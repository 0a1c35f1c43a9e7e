// HEFT against the Standard Task Graph Set's proven optima (tests/fixtures/stg/README.md).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <iomanip>
#include <map>
#include <sstream>

#include "graph/critical_path.h"
#include "graph/heft.h"
#include "stg_reader.h"
#include "support/test_support.h"

using dagadvisor::graph::computeCriticalPath;
using dagadvisor::graph::HeftProblem;
using dagadvisor::graph::scheduleHeft;
using dagadvisor::graph::TaskGraph;
using dagadvisor::testing::fixturePath;
using dagadvisor::testing::parseStg;
using dagadvisor::testing::parseStgOptima;
using dagadvisor::testing::readFile;
using dagadvisor::testing::StgGraph;

namespace {

struct GapStats {
  std::size_t graphs = 0;
  std::size_t proven = 0;
  std::size_t at_optimum = 0;
  double gap_sum = 0;
  double worst_gap = 0;
  std::string worst_file;
};

const StgGraph& loadGraph(std::map<std::string, StgGraph>& cache, const std::string& file) {
  auto it = cache.find(file);
  if (it == cache.end()) {
    it = cache.emplace(file, parseStg(readFile(fixturePath("stg/" + file)))).first;
  }
  return it->second;
}

double heftMakespan(const StgGraph& stg, const TaskGraph& graph, std::size_t procs) {
  std::vector<double> cost;
  cost.reserve(stg.cost.size() * procs);
  for (double c : stg.cost) {
    cost.insert(cost.end(), procs, c);
  }
  auto schedule = scheduleHeft(HeftProblem{&graph, procs, std::move(cost), {}, {}, {}});
  REQUIRE(schedule.ok());
  // Homogeneous, no communication: the mean-cost critical path is the plain one.
  CHECK(schedule->critical_path_length == Approx(stg.cp_length));
  return schedule->makespan;
}

}  // namespace

TEST_CASE("HEFT on the Standard Task Graph Set stays above the proven optima", "[heft][stg]") {
  std::map<std::string, StgGraph> cache;
  std::ostringstream summary;
  summary << std::fixed << std::setprecision(2);
  GapStats all;
  for (int size : {50, 100}) {
    for (std::size_t procs : {2, 4, 8, 16}) {
      const std::string csv =
          "stg/optimal/Case" + std::to_string(size) + "_" + std::to_string(procs) + "_OPT.csv";
      const auto optima = parseStgOptima(readFile(fixturePath(csv)));
      REQUIRE(optima.size() == 180);
      GapStats stats;
      for (const auto& [file, opt] : optima) {
        INFO(file << " on " << procs << " processors");
        const StgGraph& stg = loadGraph(cache, file);
        REQUIRE(stg.cost.size() == static_cast<std::size_t>(size) + 2);
        const TaskGraph graph(stg.cost.size(), stg.edges);
        REQUIRE_FALSE(graph.hasCycle());
        const double cp = computeCriticalPath(graph, stg.cost).length;
        CHECK(cp == stg.cp_length);
        const double makespan = heftMakespan(stg, graph, procs);
        CHECK(makespan >= cp);
        CHECK(makespan >= opt.lower);
        ++stats.graphs;
        if (opt.lower != opt.upper) {
          continue;  // only bounded by the set; no gap to report
        }
        const double gap = (makespan - opt.lower) / opt.lower;
        ++stats.proven;
        stats.at_optimum += makespan == opt.lower ? 1 : 0;
        stats.gap_sum += gap;
        if (gap > stats.worst_gap) {
          stats.worst_gap = gap;
          stats.worst_file = file;
        }
      }
      CHECK(stats.graphs == 180);
      all.proven += stats.proven;
      all.at_optimum += stats.at_optimum;
      all.gap_sum += stats.gap_sum;
      all.worst_gap = std::max(all.worst_gap, stats.worst_gap);
      summary << size << " tasks, P=" << procs << ": " << stats.proven << " proven optima, "
              << stats.at_optimum << " matched, mean gap "
              << 100 * stats.gap_sum / static_cast<double>(stats.proven) << " %, worst "
              << 100 * stats.worst_gap << " % (" << stats.worst_file << ")\n";
    }
  }
  summary << "all: " << all.proven << " proven optima, " << all.at_optimum << " matched, mean gap "
          << 100 * all.gap_sum / static_cast<double>(all.proven) << " %, worst "
          << 100 * all.worst_gap << " %\n";
  WARN("HEFT vs STG optima\n" << summary.str());
}
