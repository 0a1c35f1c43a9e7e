#include "sources/airflow/airflow_run_ids.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>

namespace dagadvisor::sources {
namespace {

// Kubernetes' limit on label values, and what Airflow keeps before appending "-" + 9 hex digits.
constexpr std::size_t kMaxLabel = 63;
constexpr std::size_t kHashDigits = 9;
constexpr std::size_t kKeptBeforeHash = kMaxLabel - kHashDigits - 1;

bool isAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

bool isLabelChar(char c) {
  return isAlnum(c) || c == '_' || c == '-' || c == '.';
}

bool isHexDigit(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

std::string labelSafe(std::string_view raw) {
  std::string out;
  std::copy_if(raw.begin(), raw.end(), std::back_inserter(out), isLabelChar);
  const auto first = std::find_if(out.begin(), out.end(), isAlnum);
  const auto last = std::find_if(out.rbegin(), out.rend(), isAlnum).base();
  return first < last ? std::string(first, last) : std::string();
}

int number(std::string_view text) {
  int value = -1;
  const auto result = std::from_chars(text.data(), text.data() + text.size(), value);
  return result.ec == std::errc() && result.ptr == text.data() + text.size() ? value : -1;
}

std::string dayText(std::chrono::sys_days day) {
  const std::chrono::year_month_day ymd(day);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04d-%02u-%02uT00:00:00Z", static_cast<int>(ymd.year()),
                static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()));
  return buf;
}

}  // namespace

bool isSafeLabelOf(std::string_view label, std::string_view raw) {
  const std::string safe = labelSafe(raw);
  if (safe == raw && safe.size() <= kMaxLabel) {
    return label == raw;
  }
  const std::string_view kept = std::string_view(safe).substr(0, kKeptBeforeHash);
  if (label.size() != kept.size() + 1 + kHashDigits || !label.starts_with(kept) ||
      label[kept.size()] != '-') {
    return false;
  }
  return hasSafeLabelHash(label);
}

bool hasSafeLabelHash(std::string_view label) {
  if (label.size() <= kHashDigits || label[label.size() - kHashDigits - 1] != '-') {
    return false;
  }
  const std::string_view hash = label.substr(label.size() - kHashDigits);
  return std::all_of(hash.begin(), hash.end(), isHexDigit);
}

std::optional<std::pair<std::string, std::string>> logicalDateWindow(std::string_view run_id) {
  const auto marker = run_id.find("__");
  // "YYYY-MM-DD" right after the run type's "__".
  if (marker == std::string_view::npos || run_id.size() < marker + 12) {
    return std::nullopt;
  }
  const std::string_view date = run_id.substr(marker + 2, 10);
  if (date[4] != '-' || date[7] != '-') {
    return std::nullopt;
  }
  const int y = number(date.substr(0, 4));
  const int m = number(date.substr(5, 2));
  const int d = number(date.substr(8, 2));
  const std::chrono::year_month_day ymd{std::chrono::year(y),
                                        std::chrono::month(static_cast<unsigned>(m)),
                                        std::chrono::day(static_cast<unsigned>(d))};
  if (y < 0 || m < 0 || d < 0 || !ymd.ok()) {
    return std::nullopt;
  }
  const std::chrono::sys_days day(ymd);
  return std::make_pair(dayText(day - std::chrono::days(1)), dayText(day + std::chrono::days(2)));
}

}  // namespace dagadvisor::sources
