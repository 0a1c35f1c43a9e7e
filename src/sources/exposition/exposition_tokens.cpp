#include "sources/exposition/exposition_tokens.h"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <system_error>
#include <utility>

namespace dagadvisor::sources::exposition::detail {
namespace {

enum CharClass : std::uint8_t {
  kMetricStart = 1,
  kMetricChar = 2,
  kLabelStart = 4,
  kLabelChar = 8,
};

// A table instead of isalnum(): locale-free and one load per character on the hot path.
constexpr std::array<std::uint8_t, 256> makeClasses() {
  std::array<std::uint8_t, 256> classes{};
  const auto mark = [&](int c, std::uint8_t bits) {
    classes[static_cast<std::size_t>(c)] |= bits;
  };
  for (int c = 'a'; c <= 'z'; ++c) {
    mark(c, kMetricStart | kMetricChar | kLabelStart | kLabelChar);
    mark(c - 'a' + 'A', kMetricStart | kMetricChar | kLabelStart | kLabelChar);
  }
  for (int c = '0'; c <= '9'; ++c) {
    mark(c, kMetricChar | kLabelChar);
  }
  mark('_', kMetricStart | kMetricChar | kLabelStart | kLabelChar);
  mark(':', kMetricStart | kMetricChar);
  return classes;
}

constexpr std::array<std::uint8_t, 256> kClasses = makeClasses();

bool is(char c, std::uint8_t bits) {
  return (kClasses[static_cast<unsigned char>(c)] & bits) != 0;
}

std::size_t scanName(std::string_view text, std::uint8_t start, std::uint8_t rest) {
  if (text.empty() || !is(text[0], start)) {
    return 0;
  }
  std::size_t n = 1;
  while (n < text.size() && is(text[n], rest)) {
    ++n;
  }
  return n;
}

bool isBlank(char c) {
  return c == ' ' || c == '\t';
}

bool hasSuffix(std::string_view name, std::string_view family,
               std::initializer_list<std::string_view> suffixes) {
  if (name.size() <= family.size() || name.substr(0, family.size()) != family) {
    return false;
  }
  const std::string_view suffix = name.substr(family.size());
  for (std::string_view allowed : suffixes) {
    if (suffix == allowed) {
      return true;
    }
  }
  return false;
}

// Length of the multi-byte sequence led by `lead` and the smallest code point it may encode
// (anything smaller is an overlong form); {0, 0} for a byte that cannot lead.
std::pair<std::size_t, std::uint32_t> sequenceOf(unsigned char lead) {
  if ((lead & 0xe0) == 0xc0) {
    return {2, 0x80};
  }
  if ((lead & 0xf0) == 0xe0) {
    return {3, 0x800};
  }
  if ((lead & 0xf8) == 0xf0) {
    return {4, 0x10000};
  }
  return {0, 0};
}

// Decodes the sequence at text[i]; returns its length, or 0 when it is invalid.
std::size_t utf8SequenceAt(std::string_view text, std::size_t i) {
  const auto lead = static_cast<unsigned char>(text[i]);
  const auto [length, smallest] = sequenceOf(lead);
  if (length == 0 || text.size() - i < length) {
    return 0;
  }
  std::uint32_t code = lead & (0x7fu >> length);
  for (std::size_t k = 1; k < length; ++k) {
    const auto next = static_cast<unsigned char>(text[i + k]);
    if ((next & 0xc0) != 0x80) {
      return 0;
    }
    code = (code << 6) | (next & 0x3fu);
  }
  const bool surrogate = code >= 0xd800 && code <= 0xdfff;
  return code < smallest || code > 0x10ffff || surrogate ? 0 : length;
}

}  // namespace

bool isAscii(std::string_view text) {
  constexpr std::uint64_t kHighBits = 0x8080808080808080ull;
  std::uint64_t seen = 0;  // OR of all words, tested once: no branch per word
  std::size_t i = 0;
  for (; i + 8 <= text.size(); i += 8) {
    std::uint64_t word = 0;
    std::memcpy(&word, text.data() + i, sizeof word);
    seen |= word;
  }
  for (; i < text.size(); ++i) {
    seen |= static_cast<unsigned char>(text[i]);
  }
  return (seen & kHighBits) == 0;
}

bool isValidUtf8(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    // Label values are nearly always ASCII: test eight bytes at a time.
    if (text.size() - i >= 8) {
      std::uint64_t word = 0;
      std::memcpy(&word, text.data() + i, sizeof word);
      if ((word & 0x8080808080808080ull) == 0) {
        i += 8;
        continue;
      }
    }
    if (static_cast<unsigned char>(text[i]) < 0x80) {
      ++i;
      continue;
    }
    const std::size_t length = utf8SequenceAt(text, i);
    if (length == 0) {
      return false;
    }
    i += length;
  }
  return true;
}

std::size_t scanMetricName(std::string_view text) {
  return scanName(text, kMetricStart, kMetricChar);
}

std::size_t scanLabelName(std::string_view text) {
  return scanName(text, kLabelStart, kLabelChar);
}

std::size_t skipBlanks(std::string_view& text) {
  std::size_t n = 0;
  while (n < text.size() && isBlank(text[n])) {
    ++n;
  }
  text.remove_prefix(n);
  return n;
}

std::string_view takeToken(std::string_view& text) {
  std::size_t n = 0;
  while (n < text.size() && !isBlank(text[n])) {
    ++n;
  }
  const std::string_view token = text.substr(0, n);
  text.remove_prefix(n);
  return token;
}

bool parseSampleValue(std::string_view text, double& out) {
  // from_chars already reads inf/infinity/nan in any case (prometheus-cpp writes "Nan") but,
  // unlike Go's ParseFloat, not a leading '+', which "+Inf" needs.
  if (!text.empty() && text[0] == '+') {
    text.remove_prefix(1);
    if (text.empty() || text[0] == '-' || text[0] == '+') {
      return false;
    }
  }
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, out);
  return !text.empty() && ec == std::errc() && ptr == end;
}

bool parseMillisTimestamp(std::string_view text, double& seconds) {
  std::int64_t millis = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, millis);
  if (text.empty() || ec != std::errc() || ptr != end) {
    return false;
  }
  seconds = static_cast<double>(millis) / 1000.0;
  return true;
}

bool parseSecondsTimestamp(std::string_view text, double& seconds) {
  return parseSampleValue(text, seconds) && std::isfinite(seconds);
}

std::optional<MetricType> parseMetricType(std::string_view keyword) {
  struct Entry {
    std::string_view keyword;
    MetricType type;
  };
  static constexpr std::array<Entry, 9> kTypes{{
      {"counter", MetricType::kCounter},
      {"gauge", MetricType::kGauge},
      {"histogram", MetricType::kHistogram},
      {"gaugehistogram", MetricType::kGaugeHistogram},
      {"summary", MetricType::kSummary},
      {"info", MetricType::kInfo},
      {"stateset", MetricType::kStateSet},
      {"untyped", MetricType::kUnknown},
      {"unknown", MetricType::kUnknown},
  }};
  for (const Entry& entry : kTypes) {
    if (entry.keyword == keyword) {
      return entry.type;
    }
  }
  return std::nullopt;
}

bool belongsToFamily(std::string_view name, std::string_view family, MetricType type) {
  if (name == family) {
    return true;
  }
  switch (type) {
    case MetricType::kCounter:
      return hasSuffix(name, family, {"_total", "_created"});
    case MetricType::kHistogram:
      return hasSuffix(name, family, {"_bucket", "_sum", "_count", "_created"});
    case MetricType::kGaugeHistogram:
      return hasSuffix(name, family, {"_bucket", "_gsum", "_gcount"});
    case MetricType::kSummary:
      return hasSuffix(name, family, {"_sum", "_count", "_created"});
    case MetricType::kInfo:
      return hasSuffix(name, family, {"_info"});
    default:
      return false;
  }
}

}  // namespace dagadvisor::sources::exposition::detail
