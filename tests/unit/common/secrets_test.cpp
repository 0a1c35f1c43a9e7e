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

TEST_CASE("a registered secret is scrubbed URL-encoded too, with either case of hex digits") {
  registerSecret("tok/e2e+9c1f=44d2ab");
  CHECK(scrubSecrets("seen tok%2Fe2e%2B9c1f%3D44d2ab") == "seen <redacted>");
  CHECK(scrubSecrets("seen tok%2fe2e%2b9c1f%3d44d2ab") == "seen <redacted>");
  CHECK(scrubSecrets("seen Bearer%20tok%2Fe2e%2B9c1f%3D44d2ab") == "seen Bearer%20<redacted>");
}

TEST_CASE("basic credentials are scrubbed in every form the header can be echoed in") {
  registerBasicCredentials("bob", "pw/e2e+77aa=0b3c");
  const std::string encoded = "Ym9iOnB3L2UyZSs3N2FhPTBiM2M=";  // base64("bob:pw/e2e+77aa=0b3c")
  CHECK(scrubSecrets("seen " + encoded) == "seen <redacted>");
  CHECK(scrubSecrets("seen " + encoded.substr(0, encoded.size() - 1)) == "seen <redacted>");
  CHECK(scrubSecrets("seen Ym9iOnB3L2UyZSs3N2FhPTBiM2M%3D") == "seen <redacted>");
  CHECK(scrubSecrets("seen bob:pw/e2e+77aa=0b3c") == "seen bob:<redacted>");
  CHECK(scrubSecrets("seen pw%2Fe2e%2B77aa%3D0b3c") == "seen <redacted>");
}

TEST_CASE("credential headers are told by their names, whatever the case") {
  CHECK(isCredentialHeader("X-Api-Key"));
  CHECK(isCredentialHeader("x-auth-token"));
  CHECK(isCredentialHeader("Cookie"));
  CHECK_FALSE(isCredentialHeader("X-Scope-OrgID"));
  registerCredentialHeaders({{"X-Api-Key", "key-unit-5be1c0ffee"}, {"X-Scope-OrgID", "tenant-a"}});
  CHECK(scrubSecrets("X-Api-Key: key-unit-5be1c0ffee, X-Scope-OrgID: tenant-a") ==
        "X-Api-Key: <redacted>, X-Scope-OrgID: tenant-a");
}

TEST_CASE("a credential header with a scheme registers its credential alone too", "[secrets]") {
  registerCredentialHeaders({{"Authorization", "Bearer kubeconfig-token-91ab"}});
  CHECK(scrubSecrets("echo: kubeconfig-token-91ab") == "echo: <redacted>");
}

TEST_CASE("redactRegisteredSecrets replaces registered secrets and changes nothing else",
          "[secrets]") {
  registerSecret("data-secret-77");
  // A "token" key and a Bearer scheme: scrubSecrets' rules would take these values too.
  const std::string json =
      R"({"name":"wf-data-secret-77","token":"not-a-secret","note":"Bearer plain-word"})";
  CHECK(redactRegisteredSecrets(json) ==
        R"({"name":"wf-<redacted>","token":"not-a-secret","note":"Bearer plain-word"})");
  CHECK(redactRegisteredSecrets("nothing here") == "nothing here");
}

}  // namespace
}  // namespace dagadvisor
