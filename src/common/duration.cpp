#include "common/duration.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <ctime>

namespace dagadvisor {
namespace {

struct Unit {
  std::string_view suffix;
  std::int64_t millis;
};

// Longest suffix first so that "ms" is not read as "m" followed by "s".
constexpr Unit kUnits[] = {{"ms", 1},         {"y", 31'536'000'000}, {"w", 604'800'000},
                           {"d", 86'400'000}, {"h", 3'600'000},      {"m", 60'000},
                           {"s", 1'000}};

int unitRank(std::string_view suffix) {
  static constexpr std::string_view kOrder[] = {"y", "w", "d", "h", "m", "s", "ms"};
  for (int i = 0; i < 7; ++i) {
    if (kOrder[i] == suffix) {
      return i;
    }
  }
  return -1;
}

bool isDigit(char c) {
  return c >= '0' && c <= '9';
}

// Reads `n` digits at `pos` into `out`; false when they are not all digits.
bool readDigits(std::string_view text, std::size_t pos, std::size_t n, int& out) {
  if (pos + n > text.size()) {
    return false;
  }
  out = 0;
  for (std::size_t i = pos; i < pos + n; ++i) {
    if (!isDigit(text[i])) {
      return false;
    }
    out = out * 10 + (text[i] - '0');
  }
  return true;
}

// The instants RFC 3339's four-digit years spell: 0000-01-01T00:00:00Z to 9999-12-31T23:59:59Z.
constexpr double kFirstSecond = -62167219200;
constexpr double kLastSecond = 253402300799;

}  // namespace

Result<UnixSeconds> parseRfc3339(std::string_view text) {
  auto bad = [&] {
    return makeError("not an RFC 3339 time or unix seconds: \"" + std::string(text) + "\"");
  };
  int year, month, day, hour, minute, second;
  if (text.size() < 20 || text[4] != '-' || text[7] != '-' ||
      (text[10] != 'T' && text[10] != 't' && text[10] != ' ') || text[13] != ':' ||
      text[16] != ':' || !readDigits(text, 0, 4, year) || !readDigits(text, 5, 2, month) ||
      !readDigits(text, 8, 2, day) || !readDigits(text, 11, 2, hour) ||
      !readDigits(text, 14, 2, minute) || !readDigits(text, 17, 2, second)) {
    return bad();
  }
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) {
    return bad();
  }
  std::size_t pos = 19;
  double fraction = 0;
  if (pos < text.size() && text[pos] == '.') {
    double scale = 0.1;
    ++pos;
    const std::size_t start = pos;
    while (pos < text.size() && isDigit(text[pos])) {
      fraction += (text[pos] - '0') * scale;
      scale /= 10;
      ++pos;
    }
    if (pos == start) {
      return bad();
    }
  }
  int offset_seconds = 0;
  if (pos < text.size() && (text[pos] == 'Z' || text[pos] == 'z')) {
    ++pos;
  } else if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) {
    int off_h, off_m;
    if (pos + 6 != text.size() || text[pos + 3] != ':' || !readDigits(text, pos + 1, 2, off_h) ||
        !readDigits(text, pos + 4, 2, off_m)) {
      return bad();
    }
    offset_seconds = (off_h * 3600 + off_m * 60) * (text[pos] == '-' ? -1 : 1);
    pos += 6;
  } else {
    return bad();
  }
  if (pos != text.size()) {
    return bad();
  }
  std::tm tm{};
  tm.tm_year = year - 1900;
  tm.tm_mon = month - 1;
  tm.tm_mday = day;
  tm.tm_hour = hour;
  tm.tm_min = minute;
  tm.tm_sec = second;
  const std::time_t utc = timegm(&tm);
  return static_cast<double>(utc - offset_seconds) + fraction;
}
std::optional<UnixSeconds> optionalRfc3339(std::string_view text) {
  auto time = parseRfc3339(text);
  return time.ok() ? std::optional<UnixSeconds>(*time) : std::nullopt;
}

Result<Duration> parseDuration(std::string_view text) {
  auto bad = [&](std::string why) {
    return makeError("not a duration (" + why + "): \"" + std::string(text) + "\"");
  };
  if (text.empty()) {
    return bad("empty; use e.g. 30s, 5m, 1h30m");
  }
  std::int64_t total = 0;
  int last_rank = -1;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::int64_t number = 0;
    // from_chars accepts a sign; durations have none.
    if (!isDigit(text[pos])) {
      return bad("expected a digit at position " + std::to_string(pos));
    }
    auto [end, ec] = std::from_chars(text.data() + pos, text.data() + text.size(), number);
    if (ec != std::errc() || end == text.data() + pos) {
      return bad("expected a number at position " + std::to_string(pos));
    }
    pos = static_cast<std::size_t>(end - text.data());
    const Unit* unit = nullptr;
    for (const Unit& candidate : kUnits) {
      if (text.substr(pos, candidate.suffix.size()) == candidate.suffix) {
        unit = &candidate;
        break;
      }
    }
    if (unit == nullptr) {
      return bad("a unit ms, s, m, h, d, w or y must follow each number");
    }
    const int rank = unitRank(unit->suffix);
    if (rank <= last_rank) {
      return bad("units must go from largest to smallest, each once");
    }
    last_rank = rank;
    if (number > INT64_MAX / unit->millis || total > INT64_MAX - number * unit->millis) {
      return bad("too large");
    }
    total += number * unit->millis;
    pos += unit->suffix.size();
  }
  return Duration(total);
}

std::string formatDuration(Duration d) {
  std::int64_t ms = d.count();
  if (ms == 0) {
    return "0s";
  }
  std::string out;
  if (ms < 0) {
    out = "-";
    ms = -ms;
  }
  for (const Unit& unit : {Unit{"d", 86'400'000}, Unit{"h", 3'600'000}, Unit{"m", 60'000},
                           Unit{"s", 1'000}, Unit{"ms", 1}}) {
    if (ms >= unit.millis) {
      out += std::to_string(ms / unit.millis);
      out += unit.suffix;
      ms %= unit.millis;
    }
  }
  return out;
}

Result<UnixSeconds> parseTimestamp(std::string_view text) {
  if (!text.empty() && isDigit(text.front()) && text.find('-') == std::string_view::npos) {
    double value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec == std::errc() && end == text.data() + text.size() && std::isfinite(value)) {
      if (value > kLastSecond) {  // would overflow time_t's conversion and no year can spell it
        return makeError("unix seconds beyond year 9999: \"" + std::string(text) + "\"");
      }
      return value;
    }
  }
  return parseRfc3339(text);
}

std::string formatTimestamp(UnixSeconds t) {
  // A double beyond time_t's range would make the conversion undefined; clamped to what
  // four-digit years spell, any sample's timestamp formats.
  const double clamped = std::isnan(t) ? 0.0 : std::clamp(std::floor(t), kFirstSecond, kLastSecond);
  const auto secs = static_cast<std::time_t>(clamped);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  // Not strftime's %Y, which drops the leading zeros of years before 1000.
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02dZ", tm.tm_year + 1900, tm.tm_mon + 1,
                tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
  return buf;
}

}  // namespace dagadvisor
