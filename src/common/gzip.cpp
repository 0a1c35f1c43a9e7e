#include "common/gzip.h"

#include <zlib.h>

#include <array>
#include <climits>

namespace dagadvisor {
namespace {

constexpr int kGzipWindowBits = 15 + 16;  // 15-bit window, gzip header and trailer
constexpr int kAutoWindowBits = 15 + 32;  // inflate: detect gzip or zlib headers

Bytef* bytes(std::string_view data) {
  // zlib's API is not const-correct; it never writes through next_in.
  return reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
}

}  // namespace

std::string gzipCompress(std::string_view data, int level) {
  z_stream stream{};
  if (deflateInit2(&stream, level, Z_DEFLATED, kGzipWindowBits, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    return {};
  }
  std::string out(deflateBound(&stream, static_cast<uLong>(data.size())), '\0');
  stream.next_in = bytes(data);
  stream.avail_in = static_cast<uInt>(data.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&stream, Z_FINISH);
  out.resize(rc == Z_STREAM_END ? stream.total_out : 0);
  deflateEnd(&stream);
  return out;
}

Result<std::string> gzipDecompress(std::string_view data, std::size_t max_bytes) {
  if (data.size() > UINT_MAX) {
    return makeError("compressed data too large");
  }
  z_stream stream{};
  if (inflateInit2(&stream, kAutoWindowBits) != Z_OK) {
    return makeError("cannot initialise zlib");
  }
  stream.next_in = bytes(data);
  stream.avail_in = static_cast<uInt>(data.size());
  std::string out;
  std::array<char, 64 * 1024> chunk{};
  int rc = Z_OK;
  while (rc == Z_OK) {
    stream.next_out = reinterpret_cast<Bytef*>(chunk.data());
    stream.avail_out = static_cast<uInt>(chunk.size());
    rc = inflate(&stream, Z_NO_FLUSH);
    out.append(chunk.data(), chunk.size() - stream.avail_out);
    if (out.size() > max_bytes) {  // checked per chunk: a bomb costs one chunk over the cap
      inflateEnd(&stream);
      return makeError("inflates beyond " + std::to_string(max_bytes) + " bytes");
    }
  }
  const std::string reason = stream.msg != nullptr ? stream.msg : "truncated stream";
  inflateEnd(&stream);
  if (rc != Z_STREAM_END) {
    return makeError("not valid gzip data (" + reason + ")");
  }
  return out;
}

}  // namespace dagadvisor
