#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"
#include "server/http_server.h"

namespace dagadvisor::server {

/// What we take from a Prometheus exporter-toolkit web-config.yml: `basic_auth_users` (user →
/// bcrypt hash). `tls_server_config` is recognised and refused with a clear error: Debian's
/// civetweb 1.15 crashed in the TLS handshake, so TLS is terminated in front of the daemon.
struct WebConfig {
  std::map<std::string, std::string> basic_auth_users;
};

/// Parses the file's text; unknown top-level keys and malformed entries are errors naming the key.
Result<WebConfig> parseWebConfig(std::string_view yaml);

/// Reads and parses `path`.
Result<WebConfig> loadWebConfig(const std::string& path);

/// Basic auth against bcrypt hashes, verified with libxcrypt's crypt_r. Like exporter-toolkit:
/// an unknown user is checked against a dummy hash (no user enumeration by timing), bcrypt runs
/// under one mutex (it is CPU-heavy by design), and successful checks are cached (at most
/// kCacheSize entries) so only the first request of a client pays the bcrypt cost.
class BasicAuth {
 public:
  static constexpr std::size_t kCacheSize = 100;

  explicit BasicAuth(WebConfig config);

  /// True when the user is known and the password matches its hash.
  bool verify(const std::string& user, const std::string& password) const;

  /// A Gate: nullopt for authorised requests and for /healthz and /readyz (probes carry no
  /// credentials); else 401 JSON with WWW-Authenticate.
  std::optional<HttpResponse> check(const HttpRequest& request) const;

 private:
  WebConfig config_;
  mutable std::mutex mutex_;
  mutable std::map<std::string, bool> cache_;  // user \0 password \0 hash → matched
};

}  // namespace dagadvisor::server
