#include "server/accept.h"

#include <catch2/catch.hpp>

namespace dagadvisor::server {
namespace {

TEST_CASE("acceptQuality reads the q of the named token, 1 without one, 0 when refused or absent",
          "[accept]") {
  CHECK(acceptQuality("gzip, deflate, br", "gzip") == 1);
  CHECK(acceptQuality("deflate, gzip;q=0", "gzip") == 0);
  CHECK(acceptQuality("deflate, GZIP ; Q=0.25", "gzip") == 0.25);
  CHECK(acceptQuality("application/json, application/yaml;q=0.5;level=1", "application/yaml") ==
        0.5);
  CHECK(acceptQuality("application/yaml;level=1;q=0", "application/yaml") == 0);
  CHECK(acceptQuality("application/yaml;q=2", "application/yaml") == 0);  // out of range
  CHECK(acceptQuality("application/yaml;q=x", "application/yaml") == 0);  // unreadable
  CHECK(acceptQuality("application/x-yaml", "application/yaml") == 0);
  CHECK(acceptQuality("", "gzip") == 0);
  CHECK(acceptQuality("*/*", "application/json") == 0);  // wildcards are the caller's
}

}  // namespace
}  // namespace dagadvisor::server
