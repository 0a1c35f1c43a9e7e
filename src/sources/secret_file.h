#pragma once

#include <ctime>
#include <optional>
#include <string>

#include "common/result.h"

namespace dagadvisor::sources {

/// A secret kept in a file (a bearer token, a password): read again when the file changes, so a
/// rotated Kubernetes service-account token takes effect on the next request, or after a server
/// refused it (forget()). Messages name the file and the setting (`field`, e.g.
/// "bearer_token_file"), never the secret.
class SecretFile {
 public:
  explicit SecretFile(std::string path = {}, std::string field = {})
      : path_(std::move(path)), field_(std::move(field)) {}

  bool configured() const { return !path_.empty(); }
  const std::string& path() const { return path_; }

  /// The file's content without surrounding whitespace; an Error when it cannot be read or is
  /// empty.
  Result<std::string> value();

  /// value(), or "" when no file is configured (a password may be empty).
  Result<std::string> valueOrEmpty() { return configured() ? value() : std::string(); }

  /// Makes the next value() read the file even if it looks unchanged.
  void forget() { mtime_.reset(); }

 private:
  std::string path_;
  std::string field_;
  std::string value_;
  std::optional<std::timespec> mtime_;
};

}  // namespace dagadvisor::sources
