#include "common/percent_encoding.h"

namespace dagadvisor {

std::string percentEncode(std::string_view text, std::string_view kept, bool lower_hex) {
  const std::string_view hex = lower_hex ? "0123456789abcdef" : "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    const bool alnum = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (alnum || kept.find(c) != std::string_view::npos) {
      out += c;
    } else {
      out += '%';
      out += hex[u >> 4];
      out += hex[u & 0xF];
    }
  }
  return out;
}

}  // namespace dagadvisor
