// The HTTP query-string and path decoders of the server (every client's request): never throw,
// every parameter has a name, and the parameters, percent-encoded again, parse back to
// themselves; a decoded path holds no NUL and, encoded again, decodes back to itself.

#include <cctype>
#include <string>

#include "fuzz_check.h"
#include "server/query_string.h"

namespace {

// Every byte but the unreserved ones as %XX, so '&', '=', '+' and '%' in names survive.
std::string percentEncode(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (std::isalnum(byte) != 0 || c == '-' || c == '.' || c == '_' || c == '~') {
      out += c;
    } else {
      out += '%';
      out += kHex[byte >> 4];
      out += kHex[byte & 15];
    }
  }
  return out;
}

}  // namespace

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
