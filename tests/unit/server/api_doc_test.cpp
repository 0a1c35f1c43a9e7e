#include <catch2/catch.hpp>
#include <regex>
#include <set>
#include <sstream>

#include "support/test_support.h"
#include "unit/server/test_http.h"

namespace {

using RouteSet = std::set<std::pair<std::string, std::string>>;

// "### GET /api/v1/nodes" headings of docs/api.md.
RouteSet documentedRoutes() {
  const std::string doc =
      dagadvisor::testing::readFile(std::string(DAGADVISOR_SOURCE_DIR) + "/docs/api.md");
  const std::regex heading(R"(^### (GET|POST|PUT|DELETE) (/\S*)$)");
  RouteSet routes;
  std::istringstream lines(doc);
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (std::regex_match(line, m, heading)) {
      routes.emplace(m[1], m[2]);
    }
  }
  return routes;
}

}  // namespace

TEST_CASE("docs/api.md lists exactly the routes the daemon serves") {
  dagadvisor::testing::Daemon d;
  RouteSet served;
  for (const auto& route : d.server.routes()) {
    if (route.second != "/echo") {  // the test's own route
      served.insert(route);
    }
  }
  const RouteSet documented = documentedRoutes();
  for (const auto& route : served) {
    INFO("served but not documented: " << route.first << " " << route.second);
    CHECK(documented.count(route) == 1);
  }
  for (const auto& route : documented) {
    INFO("documented but not served: " << route.first << " " << route.second);
    CHECK(served.count(route) == 1);
  }
  CHECK(served.size() >= 12);
}
