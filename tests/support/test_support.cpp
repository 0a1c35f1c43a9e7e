#include "support/test_support.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace dagadvisor::testing {

std::string fixturePath(std::string_view relative) {
  return std::string(DAGADVISOR_SOURCE_DIR) + "/tests/fixtures/" + std::string(relative);
}

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  INFO("reading " << path);
  REQUIRE(in.good());
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::string prometheusFixture(std::string_view name) {
  return readFile(fixturePath("prometheus/" + std::string(name)));
}

nlohmann::json workflowFixture(std::string_view name) {
  return nlohmann::json::parse(readFile(fixturePath("workflows/" + std::string(name))));
}

bool anyContains(const std::vector<std::string>& lines, std::string_view text) {
  return std::any_of(lines.begin(), lines.end(),
                     [&](const std::string& line) { return line.find(text) != std::string::npos; });
}

}  // namespace dagadvisor::testing
