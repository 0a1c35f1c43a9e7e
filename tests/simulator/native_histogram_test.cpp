#include "native_histogram.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <string>

using namespace dagadvisor::sim;

TEST_CASE("native histogram: schema-3 bucket i holds 2^((i-1)/8) < v <= 2^(i/8)", "[native]") {
  const double step = std::pow(2.0, 1.0 / 8);
  CHECK(NativeHistogram::bucketIndex(1.0) == 0);  // upper bounds are inclusive
  CHECK(NativeHistogram::bucketIndex(2.0) == 8);
  CHECK(NativeHistogram::bucketIndex(0.5) == -8);
  CHECK(NativeHistogram::bucketIndex(1.0001) == 1);
  CHECK(NativeHistogram::bucketIndex(step * 1.0001) == 2);
  CHECK(NativeHistogram::bucketIndex(0.3) == -13);  // 2^(-14/8) = 0.297 < 0.3 <= 2^(-13/8) = 0.324
}

TEST_CASE("native histogram: protobuf bytes of one family, spans and deltas", "[native]") {
  NativeHistogram h;
  for (double v : {1.0, 1.05, 1.05, 2.0}) {  // buckets 0, 1, 1, 8
    h.observe(v);
  }
  h.observe(0.0);  // the zero bucket
  CHECK(h.count == 5);
  CHECK(h.zero_count == 1);
  const std::string bytes = encodeNativeFamily("m", "", {{{{"a", "b"}}, h}});
  // Histogram message: count 5 (08 05), sum 5.1 (11 + 8 bytes), schema 3 zigzag 6 (28 06),
  // zero threshold (31 + 8 bytes), zero count 1 (38 01), spans {0,2} (62 04 08 00 10 02) and
  // {offset 6, 1} (62 04 08 0c 10 01), deltas 1, +1, -1 zigzagged (68 02 68 02 68 01).
  const std::string spans = std::string("\x62\x04\x08\x00\x10\x02", 6) + "\x62\x04\x08\x0c\x10\x01";
  const std::string deltas = "\x68\x02\x68\x02\x68\x01";
  CHECK(bytes.find(spans + deltas) != std::string::npos);
  CHECK(bytes.find(std::string("\x28\x06", 2)) != std::string::npos);
  CHECK(bytes.find(std::string("\x38\x01", 2)) != std::string::npos);
  // Framing: a varint length, then MetricFamily{name "m", help "", type HISTOGRAM}.
  CHECK(static_cast<unsigned char>(bytes[0]) == bytes.size() - 1);
  CHECK(bytes.substr(1, 7) == std::string("\x0a\x01m\x12\x00\x18\x04", 7));
}

TEST_CASE("native histogram: an empty one keeps an empty span, so it stays native", "[native]") {
  const std::string bytes = encodeNativeFamily("m", "", {{{}, NativeHistogram{}}});
  CHECK(bytes.find(std::string("\x62\x04\x08\x00\x10\x00", 6)) != std::string::npos);
}
