// The web config parser (server.web_config_file, exporter-toolkit's web-config.yml): never throws
// whatever the YAML, names the key of every error, and takes only bcrypt hashes for its users.

#include <string>

#include "fuzz_check.h"
#include "server/web_config.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace dagadvisor;
  const auto parsed = server::parseWebConfig(fuzz::asText(data, size));
  if (!parsed.ok()) {
    fuzz::check(!parsed.error().field.empty(), "every error names its key");
    return 0;
  }
  for (const auto& [user, hash] : parsed->basic_auth_users) {
    fuzz::check(hash.starts_with("$2"), "every user's hash is a bcrypt hash");
  }
  return 0;
}
