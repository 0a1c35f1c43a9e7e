// The HTTP query-string and path decoders of the server (every client's request): never throw,
// every parameter has a name, and the parameters, percent-encoded again, parse back to
// themselves; a decoded path holds no NUL and, encoded again, decodes back to itself.

#include <string>

#include "common/percent_encoding.h"
#include "fuzz_check.h"
#include "server/query_string.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace dagadvisor;
  const auto params = server::parseQuery(fuzz::asText(data, size));
  std::string again;
  for (const auto& [name, value] : params) {
    fuzz::check(!name.empty(), "every parameter has a name");
    fuzz::check(server::urlDecode(percentEncode(value)) == value, "urlDecode undoes encoding");
    again += (again.empty() ? "" : "&") + percentEncode(name) + "=" + percentEncode(value);
  }
  fuzz::check(server::parseQuery(again) == params, "encoded parameters parse back to themselves");
  // The same bytes as a request path: a decoded one never holds a NUL, and encodes back to itself.
  if (const auto path = server::decodePath(fuzz::asText(data, size))) {
    fuzz::check(path->find('\0') == std::string::npos, "a decoded path holds no NUL");
    fuzz::check(server::decodePath(percentEncode(*path)) == path, "decodePath undoes encoding");
  }
  return 0;
}
