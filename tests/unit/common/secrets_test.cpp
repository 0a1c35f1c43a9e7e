#include "common/secrets.h"

#include <catch2/catch.hpp>

namespace dagadvisor {
namespace {

TEST_CASE("registered secrets are scrubbed wherever they appear, the longest first") {
  registerSecret("tok-3f9a1c77");
  registerSecret("tok-3f9a1c77-extended");
  registerSecret("ab");  // too short to register: scrubbing it would garble every message
  CHECK(scrubSecrets("token tok-3f9a1c77 rejected") == "token <redacted> rejected");
  CHECK(scrubSecrets("x=tok-3f9a1c77-extended;") == "x=<redacted>;");
  CHECK(scrubSecrets("about abc") == "about abc");
}

TEST_CASE("Authorization values echoed by a backend are scrubbed in every spelling") {
  CHECK(scrubSecrets("refused request with Authorization: Bearer eyJhbGciOi.x.y") ==
        "refused request with Authorization: Bearer <redacted>");
  CHECK(scrubSecrets(R"({"headers":{"authorization":"Basic YWxpY2U6aHVudGVyMg=="}})") ==
        R"({"headers":{"authorization":"Basic <redacted>"}})");
  CHECK(scrubSecrets("authorization=opaque-credential&next=1") ==
        "authorization=<redacted>&next=1");
  CHECK(scrubSecrets("X-Amz-Security-Token: FQoGZXIvYXdzE") == "X-Amz-Security-Token: <redacted>");
  CHECK(scrubSecrets("got bearer abcdefghijkl back") == "got bearer <redacted> back");
}

TEST_CASE("prose about authorization is left readable") {
  CHECK(scrubSecrets("HTTP 401: authorization required") == "HTTP 401: authorization required");
  CHECK(scrubSecrets("basic auth failed") == "basic auth failed");
  CHECK(scrubSecrets("") == "");
}

}  // namespace
}  // namespace dagadvisor
