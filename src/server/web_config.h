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
#include "server/tls.h"

namespace dagadvisor::server {

/// What we take from a Prometheus exporter-toolkit web-config.yml: `basic_auth_users` (user →
/// bcrypt hash) and `tls_server_config` (cert_file, key_file, client_auth_type, client_ca_file,
/// min_version; other TLS keys are refused rather than silently ignored).
struct WebConfig {
  std::map<std::string, std::string> basic_auth_users;
  std::optional<TlsSettings> tls;
};

/// Parses the file's text; unknown keys and malformed entries are errors naming the key. TLS
/// file paths are taken as written (see loadWebConfig).
Result<WebConfig> parseWebConfig(std::string_view yaml);

/// Reads and parses `path`; relative TLS file paths are relative to the file's directory (as
/// exporter-toolkit does), and the TLS files are loaded once to refuse bad ones now.
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

  /// Whether `request` carries the credentials of a configured user (any path).
  bool authorized(const HttpRequest& request) const;

 private:
  WebConfig config_;
  mutable std::mutex mutex_;
  mutable std::map<std::string, bool> cache_;  // user \0 password \0 hash → matched
};

}  // namespace dagadvisor::server
