#include "common/base64.h"

#include <catch2/catch.hpp>

using dagadvisor::decodeBase64;

TEST_CASE("base64 decodes with and without padding and refuses junk") {
  CHECK(decodeBase64("YWxpY2U6d29uZGVybGFuZA==") == std::optional<std::string>("alice:wonderland"));
  CHECK(decodeBase64("YWxpY2U6d29uZGVybGFuZA") == std::optional<std::string>("alice:wonderland"));
  CHECK(decodeBase64("") == std::optional<std::string>(""));
  CHECK_FALSE(decodeBase64("not base64!").has_value());
}

TEST_CASE("base64 encodes with padding, as a basic Authorization header carries credentials") {
  using dagadvisor::encodeBase64;
  CHECK(encodeBase64("alice:wonderland") == "YWxpY2U6d29uZGVybGFuZA==");
  CHECK(encodeBase64("bob:pw-e2e-77aa0b3c") == "Ym9iOnB3LWUyZS03N2FhMGIzYw==");
  CHECK(encodeBase64("ab") == "YWI=");
  CHECK(encodeBase64("abc") == "YWJj");
  CHECK(encodeBase64("") == "");
  const std::string bytes("\xff\x00\xfe\x7f", 4);
  CHECK(decodeBase64(encodeBase64(bytes)) == std::optional<std::string>(bytes));
}
