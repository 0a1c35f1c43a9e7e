#include "sources/secret_file.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "common/secrets.h"

namespace dagadvisor::sources {
namespace {

std::string trimmed(std::string text) {
  const auto last = text.find_last_not_of(" \t\r\n");
  text.erase(last == std::string::npos ? 0 : last + 1);
  return text.substr(std::min(text.size(), text.find_first_not_of(" \t\r\n")));
}

bool sameTime(const std::timespec& a, const std::timespec& b) {
  return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}

}  // namespace

// Re-reading only on an mtime change avoids a file read per query.
Result<std::string> SecretFile::value() {
  struct stat info {};
  if (::stat(path_.c_str(), &info) != 0) {
    return makeError("cannot read secret file " + path_ + ": " + std::strerror(errno), field_);
  }
  if (mtime_ && sameTime(*mtime_, info.st_mtim)) {
    return value_;
  }
  std::ifstream in(path_, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  std::string secret = trimmed(text.str());
  if (!in.good() || secret.empty()) {
    return makeError("cannot read a secret from file " + path_, field_);
  }
  registerSecret(secret);  // from now on no message can repeat it
  value_ = std::move(secret);
  mtime_ = info.st_mtim;
  return value_;
}

}  // namespace dagadvisor::sources
