#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "common/result.h"

namespace dagadvisor {

/// `data` as a gzip member (RFC 1952). Level 1: cached HTTP bodies are compressed once per
/// cycle, where speed matters more than the last few per cent of size.
std::string gzipCompress(std::string_view data, int level = 1);

/// The bytes of a gzip (or zlib) stream. Errors: corrupt or truncated data, or more than
/// `max_bytes` once inflated (a small input can inflate to gigabytes).
Result<std::string> gzipDecompress(std::string_view data, std::size_t max_bytes);

}  // namespace dagadvisor
