// gzip decoding (compressed Argo node status, cached bodies): any bytes inflate to at most the
// cap or give an Error, never an exception; and every input survives compress → decompress,
// with the cap exact (one byte less is refused).

#include <string>

#include "common/gzip.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace dagadvisor;
  const std::string_view input = fuzz::asText(data, size);
  constexpr std::size_t kCap = 1 << 20;
  if (const auto inflated = gzipDecompress(input, kCap)) {
    fuzz::check(inflated->size() <= kCap, "inflated within the cap");
  }
  const std::string packed = gzipCompress(input);
  const auto unpacked = gzipDecompress(packed, size);
  fuzz::check(unpacked.ok() && *unpacked == input, "compress then decompress is the identity");
  if (size > 0) {
    fuzz::check(!gzipDecompress(packed, size - 1).ok(), "one byte over the cap is refused");
  }
  return 0;
}
