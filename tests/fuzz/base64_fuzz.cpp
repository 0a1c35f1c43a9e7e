// base64 (HTTP basic credentials from clients, kubeconfig "*-data"): never throws, decodes at
// most 3 bytes per 4 characters, and the encoding of any bytes decodes back to them (the
// encoder here is the RFC 4648 table, written out so the check does not trust the decoder).

#include <algorithm>
#include <string>

#include "common/base64.h"
#include "fuzz_check.h"

namespace {

std::string encode(std::string_view bytes) {
  static constexpr char kTable[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    const std::size_t n = std::min<std::size_t>(3, bytes.size() - i);
    std::uint32_t group = 0;
    for (std::size_t j = 0; j < 3; ++j) {
      group = (group << 8) | (j < n ? static_cast<unsigned char>(bytes[i + j]) : 0u);
    }
    for (std::size_t j = 0; j < 4; ++j) {
      out += j <= n ? kTable[(group >> (18 - 6 * j)) & 63] : '=';
    }
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace dagadvisor;
  const std::string_view input = fuzz::asText(data, size);
  if (const auto decoded = decodeBase64(input)) {
    fuzz::check(decoded->size() <= (size + 3) / 4 * 3, "at most 3 bytes per 4 characters");
  }
  const auto round = decodeBase64(encode(input));
  fuzz::check(round.has_value() && *round == input, "the encoding of any bytes decodes back");
  return 0;
}
