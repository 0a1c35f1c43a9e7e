#include "common/gzip.h"

#include <catch2/catch.hpp>
#include <string>

using dagadvisor::gzipCompress;
using dagadvisor::gzipDecompress;

TEST_CASE("gzip: round trip, with the gzip magic bytes and smaller for repetitive text") {
  std::string text;
  for (int i = 0; i < 2000; ++i) {
    text += "dagadvisor_node_requested{node=\"gpu-" + std::to_string(i % 17) + "\"} 1\n";
  }
  const std::string packed = gzipCompress(text);
  REQUIRE(packed.size() > 2);
  CHECK(static_cast<unsigned char>(packed[0]) == 0x1f);
  CHECK(static_cast<unsigned char>(packed[1]) == 0x8b);
  CHECK(packed.size() < text.size() / 4);
  const auto unpacked = gzipDecompress(packed, text.size());
  REQUIRE(unpacked.ok());
  CHECK(*unpacked == text);
  CHECK(gzipDecompress(gzipCompress(""), 0).value().empty());
}

TEST_CASE("gzip: corrupt, truncated and oversized data are errors, never a crash") {
  const std::string packed = gzipCompress(std::string(100000, 'a'));
  CHECK_FALSE(gzipDecompress(packed.substr(0, packed.size() / 2), 1 << 20).ok());
  CHECK_FALSE(gzipDecompress("not gzip at all", 1 << 20).ok());
  std::string flipped = packed;
  flipped[flipped.size() / 2] = static_cast<char>(flipped[flipped.size() / 2] ^ 0x55);
  CHECK_FALSE(gzipDecompress(flipped, 1 << 20).ok());
  const auto bomb = gzipDecompress(packed, 99999);  // one byte short of the real size
  REQUIRE_FALSE(bomb.ok());
  CHECK(bomb.error().message.find("99999") != std::string::npos);
  CHECK(gzipDecompress(packed, 100000).ok());
}
