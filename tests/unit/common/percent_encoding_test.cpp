#include "common/percent_encoding.h"

#include <catch2/catch.hpp>

using dagadvisor::percentEncode;

TEST_CASE("percentEncode keeps letters, digits and the kept characters, encodes the rest") {
  CHECK(percentEncode("a b/c~d-e.f_g") == "a%20b%2Fc~d-e.f_g");
  CHECK(percentEncode("a b/c~d", "-._") == "a%20b%2Fc%7Ed");
  CHECK(percentEncode("tok/+=", "-._~", true) == "tok%2f%2b%3d");
  CHECK(percentEncode(std::string("\xff\x00", 2)) == "%FF%00");
  CHECK(percentEncode("") == "");
}
