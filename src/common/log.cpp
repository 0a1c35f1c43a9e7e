#include "common/log.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <mutex>

#include "common/secrets.h"

namespace dagadvisor::log {
namespace {

std::atomic<Level> g_level{Level::kInfo};
std::atomic<Format> g_format{Format::kLogfmt};
std::mutex g_write_mutex;
std::atomic<std::FILE*> g_output{nullptr};  // null: stderr

const char* levelName(Level level) {
  switch (level) {
    case Level::kDebug:
      return "debug";
    case Level::kInfo:
      return "info";
    case Level::kWarn:
      return "warn";
    case Level::kError:
      return "error";
  }
  return "info";
}

bool needsQuotes(std::string_view value) {
  if (value.empty()) {
    return true;
  }
  for (char c : value) {
    if (c == ' ' || c == '"' || c == '=' || c == '\\' || static_cast<unsigned char>(c) < 0x20) {
      return true;
    }
  }
  return false;
}

void appendEscaped(std::string& out, std::string_view value) {
  for (char c : value) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out += '?';
        } else {
          out += c;
        }
    }
  }
}

void appendLogfmtPair(std::string& out, std::string_view key, std::string_view value) {
  out += ' ';
  out += key;
  out += '=';
  if (needsQuotes(value)) {
    out += '"';
    appendEscaped(out, value);
    out += '"';
  } else {
    out += value;
  }
}

void appendJsonPair(std::string& out, std::string_view key, std::string_view value) {
  out += out.size() > 1 ? ",\"" : "\"";
  appendEscaped(out, key);
  out += "\":\"";
  appendEscaped(out, value);
  out += '"';
}

std::string timestampNow() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t secs = std::chrono::system_clock::to_time_t(now);
  const auto millis =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>(millis));
  return buf;
}

}  // namespace

void setLevel(Level level) {
  g_level.store(level);
}
void setOutput(std::FILE* out) {
  g_output.store(out);
}
void setFormat(Format format) {
  g_format.store(format);
}
Level level() {
  return g_level.load();
}

bool parseLevel(std::string_view text, Level& out) {
  for (Level candidate : {Level::kDebug, Level::kInfo, Level::kWarn, Level::kError}) {
    if (text == levelName(candidate)) {
      out = candidate;
      return true;
    }
  }
  return false;
}

void write(Level lvl, std::string_view component, std::string_view message,
           std::span<const Field> fields) {
  if (lvl < g_level.load()) {
    return;
  }
  const bool json = g_format.load() == Format::kJson;
  auto append = json ? appendJsonPair : appendLogfmtPair;
  std::string line = json ? "{" : "";
  append(line, "ts", timestampNow());
  append(line, "level", levelName(lvl));
  append(line, "component", component);
  // The last line of defence: no token, password or echoed Authorization reaches the log.
  append(line, "msg", scrubSecrets(message));
  for (const auto& [key, value] : fields) {
    append(line, key, scrubSecrets(value));
  }
  line += json ? "}\n" : "\n";
  if (!json) {
    line.erase(0, 1);  // the leading space of the first pair
  }
  std::lock_guard lock(g_write_mutex);
  std::FILE* out = g_output.load();
  std::fwrite(line.data(), 1, line.size(), out != nullptr ? out : stderr);
  std::fflush(out != nullptr ? out : stderr);
}

}  // namespace dagadvisor::log
