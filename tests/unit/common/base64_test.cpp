#include "common/base64.h"

#include <catch2/catch.hpp>

using dagadvisor::decodeBase64;

TEST_CASE("base64 decodes with and without padding and refuses junk") {
  CHECK(decodeBase64("YWxpY2U6d29uZGVybGFuZA==") == std::optional<std::string>("alice:wonderland"));
  CHECK(decodeBase64("YWxpY2U6d29uZGVybGFuZA") == std::optional<std::string>("alice:wonderland"));
  CHECK(decodeBase64("") == std::optional<std::string>(""));
  CHECK_FALSE(decodeBase64("not base64!").has_value());
}
