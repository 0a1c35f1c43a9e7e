#include "server/web_config.h"

#include <crypt.h>
#include <yaml-cpp/yaml.h>

#include <array>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/base64.h"

namespace dagadvisor::server {
namespace {

// A valid bcrypt hash of a random password nobody knows, checked for unknown users so that a
// wrong user name costs as much time as a wrong password.
constexpr const char* kDummyHash = "$2b$10$BUXf2BG5v.5QFc/KlZ4a/.s8.37dhaJQfCktyybD.ya/HKkqZXZv.";

bool bcryptMatches(const std::string& password, const std::string& hash) {
  auto data = std::make_unique<crypt_data>();  // ~32 KB: not on a worker's stack
  std::memset(data.get(), 0, sizeof(crypt_data));
  const char* result = crypt_r(password.c_str(), hash.c_str(), data.get());
  // crypt_r signals failure with null or a string starting with '*'.
  return result != nullptr && result[0] != '*' && hash == result;
}

Result<TlsSettings> parseTls(const YAML::Node& node) {
  const std::string section = "tls_server_config";
  if (!node.IsMap()) {
    return makeError("must be a mapping", section);
  }
  TlsSettings tls;
  const std::map<std::string, std::string*> fields = {{"cert_file", &tls.cert_file},
                                                      {"key_file", &tls.key_file},
                                                      {"client_ca_file", &tls.client_ca_file},
                                                      {"client_auth_type", &tls.client_auth_type},
                                                      {"min_version", &tls.min_version}};
  for (const auto& entry : node) {
    const auto key = entry.first.as<std::string>();
    const auto field = fields.find(key);
    if (field == fields.end()) {
      return makeError(
          "not supported (supported: cert_file, key_file, client_ca_file, "
          "client_auth_type, min_version)",
          section + "." + key);
    }
    if (!entry.second.IsScalar()) {
      return makeError("must be a string", section + "." + key);
    }
    *field->second = entry.second.as<std::string>();
  }
  return tls;
}

// exporter-toolkit resolves relative TLS paths against the web config's directory.
void resolveAgainst(const std::filesystem::path& dir, std::string& file) {
  if (!file.empty() && std::filesystem::path(file).is_relative()) {
    file = (dir / file).string();
  }
}

HttpResponse unauthorized() {
  HttpResponse response = jsonError(401, "authentication required");
  response.headers.emplace_back("WWW-Authenticate", "Basic realm=\"dagadvisor\"");
  return response;
}

}  // namespace

Result<WebConfig> parseWebConfig(std::string_view yaml) {
  WebConfig config;
  try {
    const YAML::Node root = YAML::Load(std::string(yaml));
    if (!root.IsDefined() || root.IsNull()) {
      return config;
    }
    if (!root.IsMap()) {
      return makeError("must be a mapping", "web_config");
    }
    for (const auto& entry : root) {
      const auto key = entry.first.as<std::string>();
      if (key == "tls_server_config") {
        auto tls = parseTls(entry.second);
        if (!tls) {
          return tls.error();
        }
        config.tls = std::move(tls).value();
        continue;
      }
      if (key == "http_server_config") {
        continue;  // headers and http2 switches: nothing we need to act on
      }
      if (key != "basic_auth_users") {
        // An empty key ("": x, or a bare tag) still gets a field: every error names one.
        return key.empty() ? makeError("unknown key \"\"", "web_config")
                           : makeError("unknown key", key);
      }
      if (!entry.second.IsMap()) {
        return makeError("must map user names to bcrypt hashes", key);
      }
      for (const auto& user : entry.second) {
        const auto name = user.first.as<std::string>();
        const auto hash = user.second.IsScalar() ? user.second.as<std::string>() : std::string();
        if (!hash.starts_with("$2")) {
          return makeError("must be a bcrypt hash ($2a$, $2b$ or $2y$)", key + "." + name);
        }
        config.basic_auth_users[name] = hash;
      }
    }
  } catch (const YAML::Exception& e) {
    return makeError(std::string("invalid YAML: ") + e.what(), "web_config");
  }
  return config;
}

Result<WebConfig> loadWebConfig(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    return makeError("cannot read " + path, "server.web_config_file");
  }
  std::ostringstream text;
  text << in.rdbuf();
  auto config = parseWebConfig(text.str());
  if (config && config->tls) {
    const auto dir = std::filesystem::path(path).parent_path();
    for (std::string* file :
         {&config->tls->cert_file, &config->tls->key_file, &config->tls->client_ca_file}) {
      resolveAgainst(dir, *file);
    }
    if (auto valid = validateTls(*config->tls); !valid.ok()) {
      config = valid.error();
    }
  }
  if (!config) {
    return makeError(path + ": " + config.error().describe(), "server.web_config_file");
  }
  return config;
}

BasicAuth::BasicAuth(WebConfig config) : config_(std::move(config)) {}

bool BasicAuth::verify(const std::string& user, const std::string& password) const {
  const auto it = config_.basic_auth_users.find(user);
  const std::string& hash = it == config_.basic_auth_users.end() ? kDummyHash : it->second;
  const std::string key = user + '\0' + password + '\0' + hash;
  std::lock_guard lock(mutex_);
  if (const auto cached = cache_.find(key); cached != cache_.end()) {
    return cached->second;
  }
  const bool ok = bcryptMatches(password, hash) && it != config_.basic_auth_users.end();
  if (ok) {
    if (cache_.size() >= kCacheSize) {
      cache_.erase(cache_.begin());
    }
    cache_.emplace(key, true);
  }
  return ok;
}

std::optional<HttpResponse> BasicAuth::check(const HttpRequest& request) const {
  for (const auto path : kProbePaths) {
    if (request.path == path) {
      return std::nullopt;
    }
  }
  return authorized(request) ? std::nullopt : std::optional<HttpResponse>(unauthorized());
}

bool BasicAuth::authorized(const HttpRequest& request) const {
  const std::string header = request.header("authorization");
  constexpr std::string_view kBasic = "Basic ";
  if (!header.starts_with(kBasic)) {
    return false;
  }
  const auto decoded = decodeBase64(std::string_view(header).substr(kBasic.size()));
  const std::size_t colon = decoded ? decoded->find(':') : std::string::npos;
  return colon != std::string::npos &&
         verify(decoded->substr(0, colon), decoded->substr(colon + 1));
}

}  // namespace dagadvisor::server
