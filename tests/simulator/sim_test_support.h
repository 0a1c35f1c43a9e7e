// Helpers for the simulator's tests: load a shipped scenario, render OpenMetrics to memory and
// parse it back. The parser is written here on purpose, independent of the simulator's writer.
#pragma once

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "exposition.h"
#include "scenario.h"
#include "simulation.h"

namespace dagadvisor::sim::test {

inline std::string scenarioPath(const std::string& name) {
  return std::string(SIM_SOURCE_DIR) + "/config/scenarios/" + name + ".yaml";
}

inline Scenario loadShipped(const std::string& name) {
  ScenarioOrError loaded = loadScenario(scenarioPath(name));
  INFO(loaded.error);
  REQUIRE(loaded.scenario.has_value());
  return *loaded.scenario;
}

/// Writes YAML to a temporary file and loads it.
inline ScenarioOrError loadText(const std::string& yaml) {
  std::string path = std::string(SIM_BINARY_DIR) + "/scenario_under_test.yaml";
  std::ofstream(path) << yaml;
  return loadScenario(path);
}

inline std::string renderOpenMetrics(const History& h) {
  std::FILE* f = std::tmpfile();
  REQUIRE(f != nullptr);
  writeOpenMetrics(h, f);
  std::fflush(f);
  std::string out;
  std::rewind(f);
  char buf[65536];
  std::size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) {
    out.append(buf, n);
  }
  std::fclose(f);
  return out;
}

/// One parsed sample line.
struct Sample {
  std::string name;
  std::map<std::string, std::string> labels;
  std::string series;  // name{labels} as written
  double value = 0;
  double time = 0;
};

inline bool parseSample(const std::string& line, Sample& s) {
  auto brace = line.find('{');
  auto close = line.rfind('}');
  if (brace == std::string::npos || close == std::string::npos) {
    return false;
  }
  s.name = line.substr(0, brace);
  s.series = line.substr(0, close + 1);
  s.labels.clear();
  std::size_t i = brace + 1;
  while (i < close) {
    auto eq = line.find('=', i);
    auto q2 = line.find('"', eq + 2);
    while (q2 != std::string::npos && line[q2 - 1] == '\\') {
      q2 = line.find('"', q2 + 1);
    }
    if (eq == std::string::npos || q2 == std::string::npos) {
      return false;
    }
    s.labels[line.substr(i, eq - i)] = line.substr(eq + 2, q2 - eq - 2);
    i = q2 + 2;
  }
  std::istringstream rest(line.substr(close + 1));
  std::string value;
  std::string time;
  rest >> value >> time;
  if (value.empty() || time.empty()) {
    return false;
  }
  s.value = value == "+Inf" ? 1e308 : std::stod(value);
  s.time = std::stod(time);
  return true;
}

/// Every sample of the text, in file order.
inline std::vector<Sample> parseAll(const std::string& text) {
  std::vector<Sample> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') {
      continue;
    }
    Sample s;
    REQUIRE(parseSample(line, s));
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace dagadvisor::sim::test
