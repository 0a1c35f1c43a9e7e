#pragma once

#include <cstdio>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <utility>

namespace dagadvisor::log {

enum class Level { kDebug = 0, kInfo = 1, kWarn = 2, kError = 3 };
enum class Format { kLogfmt, kJson };

/// One structured field of a log line; values are rendered as given (quoted when needed).
using Field = std::pair<std::string_view, std::string>;

void setLevel(Level level);
/// Where lines go (stderr by default); tests point it at a temporary file.
void setOutput(std::FILE* out);
void setFormat(Format format);
Level level();

/// Parses "debug", "info", "warn", "error"; false when the word is none of them.
bool parseLevel(std::string_view text, Level& out);

/// Writes one line to stderr: `ts=… level=… component=… msg="…" key=value …` (or JSON).
/// Thread-safe; lines below the current level cost one comparison.
void write(Level level, std::string_view component, std::string_view message,
           std::span<const Field> fields = {});

/// A logger bound to a component tag, the way every stage logs.
class Logger {
 public:
  explicit Logger(std::string_view component) : component_(component) {}
  void debug(std::string_view msg, std::initializer_list<Field> f = {}) const {
    write(Level::kDebug, component_, msg, f);
  }
  /// Fields counted at run time (a cycle's stages).
  void debug(std::string_view msg, std::span<const Field> f) const {
    write(Level::kDebug, component_, msg, f);
  }
  void info(std::string_view msg, std::initializer_list<Field> f = {}) const {
    write(Level::kInfo, component_, msg, f);
  }
  void warn(std::string_view msg, std::initializer_list<Field> f = {}) const {
    write(Level::kWarn, component_, msg, f);
  }
  void error(std::string_view msg, std::initializer_list<Field> f = {}) const {
    write(Level::kError, component_, msg, f);
  }

 private:
  std::string_view component_;
};

}  // namespace dagadvisor::log
