#include "server/query_string.h"

#include <civetweb.h>

#include <algorithm>

namespace dagadvisor::server {

std::string urlDecode(std::string_view text) {
  std::string out(text.size() + 1, '\0');
  const int n = mg_url_decode(text.data(), static_cast<int>(text.size()), out.data(),
                              static_cast<int>(out.size()), /*is_form_url_encoded=*/1);
  out.resize(n < 0 ? 0 : static_cast<std::size_t>(n));
  return out;
}

std::optional<std::string> decodePath(std::string_view raw) {
  std::string out(raw.size() + 1, '\0');
  const int n = mg_url_decode(raw.data(), static_cast<int>(raw.size()), out.data(),
                              static_cast<int>(out.size()), /*is_form_url_encoded=*/0);
  if (n < 0) {
    return std::nullopt;
  }
  out.resize(static_cast<std::size_t>(n));
  // Each well-formed escape turns 3 characters into 1; mg_url_decode copies a malformed one as
  // it is, which leaves the decoded path longer.
  const auto escapes = static_cast<std::size_t>(std::count(raw.begin(), raw.end(), '%'));
  if (out.size() != raw.size() - 2 * escapes || out.find('\0') != std::string::npos) {
    return std::nullopt;
  }
  return out;
}

std::map<std::string, std::string> parseQuery(std::string_view query) {
  std::map<std::string, std::string> params;
  while (!query.empty()) {
    const std::size_t amp = std::min(query.find('&'), query.size());
    const std::string_view pair = query.substr(0, amp);
    query.remove_prefix(std::min(amp + 1, query.size()));
    const std::size_t eq = std::min(pair.find('='), pair.size());
    if (eq > 0) {
      params.emplace(urlDecode(pair.substr(0, eq)),
                     urlDecode(pair.substr(std::min(eq + 1, pair.size()))));
    }
  }
  return params;
}

}  // namespace dagadvisor::server
