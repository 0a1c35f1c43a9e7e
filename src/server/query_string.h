#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace dagadvisor::server {

/// The parameters of a URL's query string ("a=1&b=x%20y", without the '?'), URL-decoded as a
/// form ('+' is a space). The first value of a repeated name wins; a pair without a name
/// ("=x", "&&") is skipped; a name without '=' has the value "". Never throws on any input.
std::map<std::string, std::string> parseQuery(std::string_view query);

/// `text` with %XX sequences and '+' (as a space) decoded; a malformed escape stays as it is.
std::string urlDecode(std::string_view text);

/// A request path (civetweb hands it over undecoded) with its %XX sequences decoded ('+' stays
/// '+'); nullopt when an escape is malformed or decodes to NUL, which a C string would cut
/// short ("/api/v1/dags/r1%00junk" must not serve r1).
std::optional<std::string> decodePath(std::string_view raw);

}  // namespace dagadvisor::server
