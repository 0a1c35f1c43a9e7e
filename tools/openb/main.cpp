// dagadvisor-openb: replays the openb GPU trace (../shared/traces/openb/) in arrival order onto
// its nodes and writes the snapshot as OpenMetrics for promtool, with its ground truth as JSON.
// See tools/openb/README.md.
#include <cxxopts.hpp>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <string>

#include "openmetrics.h"
#include "replay.h"
#include "summary.h"
#include "trace.h"

namespace {

using namespace dagadvisor::openb;

Placement parsePlacement(const std::string& text) {
  for (Placement p : {Placement::kSpread, Placement::kBestFit, Placement::kRandom}) {
    if (text == placementName(p)) {
      return p;
    }
  }
  throw std::invalid_argument("--placement must be spread, best-fit or random, not " + text);
}

Pools parsePools(const std::string& text) {
  for (Pools p : {Pools::kMixed, Pools::kRespected}) {
    if (text == poolsName(p)) {
      return p;
    }
  }
  throw std::invalid_argument("--pools must be mixed or respected, not " + text);
}

cxxopts::Options options() {
  cxxopts::Options o("dagadvisor-openb", "Replay the openb trace into an OpenMetrics snapshot");
  o.add_options()("nodes", "node CSV", cxxopts::value<std::string>())(
      "pods", "pod CSV", cxxopts::value<std::string>())(
      "load", "GPU requests to arrive, as a share of the GPUs",
      cxxopts::value<double>()->default_value("1.0"))(
      "placement", "spread, best-fit or random",
      cxxopts::value<std::string>()->default_value("spread"))(
      "pools", "mixed or respected", cxxopts::value<std::string>()->default_value("mixed"))(
      "seed", "random placement seed", cxxopts::value<std::uint64_t>()->default_value("1"))(
      "at", "sample time, unix seconds", cxxopts::value<std::int64_t>())(
      "out", "OpenMetrics file to write", cxxopts::value<std::string>())(
      "summary", "ground-truth JSON file to write", cxxopts::value<std::string>())("help", "usage");
  return o;
}

std::ofstream openOut(const std::string& path) {
  std::ofstream out(path);
  if (!out) {
    throw std::runtime_error("cannot write " + path);
  }
  return out;
}

int run(int argc, char** argv) {
  cxxopts::Options spec = options();
  const cxxopts::ParseResult args = spec.parse(argc, argv);
  if (args.count("help") || !args.count("nodes") || !args.count("pods") || !args.count("at") ||
      !args.count("out")) {
    std::cerr << spec.help();
    return args.count("help") ? 0 : 2;
  }
  ReplayOptions o;
  o.load = args["load"].as<double>();
  o.placement = parsePlacement(args["placement"].as<std::string>());
  o.pools = parsePools(args["pools"].as<std::string>());
  o.seed = args["seed"].as<std::uint64_t>();
  const ReplayResult cluster = replay(readNodes(args["nodes"].as<std::string>()),
                                      readPods(args["pods"].as<std::string>()), o);
  std::ofstream out = openOut(args["out"].as<std::string>());
  writeOpenMetrics(cluster, args["at"].as<std::int64_t>(), out);
  if (args.count("summary")) {
    openOut(args["summary"].as<std::string>()) << summarize(cluster).dump(2) << '\n';
  }
  return out.good() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "dagadvisor-openb: " << e.what() << '\n';
    return 1;
  }
}
