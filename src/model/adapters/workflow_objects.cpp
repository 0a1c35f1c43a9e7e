#include "model/adapters/workflow_objects.h"

#include <algorithm>
#include <charconv>
#include <cstdio>

namespace dagadvisor::model {
namespace {

// Days since 1970-01-01 of a civil date (proleptic Gregorian), after H. Hinnant's algorithm.
long long daysFromCivil(long long y, unsigned m, unsigned d) {
  y -= m <= 2 ? 1 : 0;
  const long long era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<long long>(doe) - 719468;
}

int readInt(std::string_view text, std::size_t pos, std::size_t len, bool& ok) {
  int value = 0;
  if (pos + len > text.size()) {
    ok = false;
    return 0;
  }
  const auto r = std::from_chars(text.data() + pos, text.data() + pos + len, value);
  ok = ok && r.ec == std::errc() && r.ptr == text.data() + pos + len;
  return value;
}

// "Z", "+hh:mm" or "-hh:mm" at `pos`, as seconds east of UTC; nullopt when malformed.
std::optional<int> readOffset(std::string_view text, std::size_t pos) {
  if (pos < text.size() && (text[pos] == 'Z' || text[pos] == 'z') && pos + 1 == text.size()) {
    return 0;
  }
  if (pos + 6 != text.size() || (text[pos] != '+' && text[pos] != '-') || text[pos + 3] != ':') {
    return std::nullopt;
  }
  bool ok = true;
  const int minutes = readInt(text, pos + 1, 2, ok) * 60 + readInt(text, pos + 4, 2, ok);
  if (!ok) {
    return std::nullopt;
  }
  return (text[pos] == '-' ? -1 : 1) * minutes * 60;
}

}  // namespace

std::optional<UnixSeconds> parseRfc3339(std::string_view text) {
  bool ok = text.size() >= 20 && text[4] == '-' && text[7] == '-' &&
            (text[10] == 'T' || text[10] == 't' || text[10] == ' ') && text[13] == ':' &&
            text[16] == ':';
  const int year = readInt(text, 0, 4, ok);
  const int month = readInt(text, 5, 2, ok);
  const int day = readInt(text, 8, 2, ok);
  const int hour = readInt(text, 11, 2, ok);
  const int minute = readInt(text, 14, 2, ok);
  const int second = readInt(text, 17, 2, ok);
  if (!ok || month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 ||
      second > 60) {
    return std::nullopt;
  }
  std::size_t pos = 19;
  double fraction = 0;
  if (pos < text.size() && text[pos] == '.') {
    double scale = 0.1;
    for (++pos; pos < text.size() && text[pos] >= '0' && text[pos] <= '9'; ++pos) {
      fraction += (text[pos] - '0') * scale;
      scale /= 10;
    }
  }
  const auto offset = readOffset(text, pos);
  if (!offset) {
    return std::nullopt;
  }
  const long long days =
      daysFromCivil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
  return static_cast<double>(days * 86400 + hour * 3600 + minute * 60 + second - *offset) +
         fraction;
}

const ObjectTask* WorkflowObject::find(std::string_view id) const {
  auto it = std::lower_bound(tasks.begin(), tasks.end(), id,
                             [](const ObjectTask& t, std::string_view key) { return t.id < key; });
  return it != tasks.end() && it->id == id ? &*it : nullptr;
}

std::size_t WorkflowObject::edgeCount() const {
  std::size_t count = 0;
  for (const ObjectTask& task : tasks) {
    count += task.parents.size();
  }
  return count;
}

}  // namespace dagadvisor::model
