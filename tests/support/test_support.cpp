#include "support/test_support.h"

#include <catch2/catch.hpp>
#include <fstream>
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

}  // namespace dagadvisor::testing
