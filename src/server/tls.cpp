#include "server/tls.h"

#include <dlfcn.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <memory>
#include <mutex>
#include <vector>

namespace dagadvisor::server {
namespace {

constexpr std::array<const char*, 5> kClientAuthTypes = {
    "NoClientCert", "RequestClientCert", "RequireAnyClientCert", "VerifyClientCertIfGiven",
    "RequireAndVerifyClientCert"};

std::string opensslError() {
  const unsigned long code = ERR_get_error();
  ERR_clear_error();
  if (code == 0) {
    return "unknown OpenSSL error";
  }
  std::array<char, 256> text{};
  ERR_error_string_n(code, text.data(), text.size());
  return text.data();
}

int verifyMode(const std::string& client_auth_type) {
  if (client_auth_type == "RequireAnyClientCert" ||
      client_auth_type == "RequireAndVerifyClientCert") {
    return SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT;
  }
  return client_auth_type == "NoClientCert" ? SSL_VERIFY_NONE : SSL_VERIFY_PEER;
}

// Loads everything into `ctx`; the Error's field names the web-config key at fault.
Result<void> applyTls(SSL_CTX* ctx, const TlsSettings& tls) {
  if (SSL_CTX_use_certificate_chain_file(ctx, tls.cert_file.c_str()) != 1) {
    return makeError("cannot load " + tls.cert_file + ": " + opensslError(),
                     "tls_server_config.cert_file");
  }
  if (SSL_CTX_use_PrivateKey_file(ctx, tls.key_file.c_str(), SSL_FILETYPE_PEM) != 1) {
    return makeError("cannot load " + tls.key_file + ": " + opensslError(),
                     "tls_server_config.key_file");
  }
  if (SSL_CTX_check_private_key(ctx) != 1) {
    return makeError("does not match the certificate in " + tls.cert_file,
                     "tls_server_config.key_file");
  }
  const int version = tls.min_version == "TLS13" ? TLS1_3_VERSION : TLS1_2_VERSION;
  SSL_CTX_set_min_proto_version(ctx, version);
  if (!tls.client_ca_file.empty()) {
    if (SSL_CTX_load_verify_locations(ctx, tls.client_ca_file.c_str(), nullptr) != 1) {
      return makeError("cannot load " + tls.client_ca_file + ": " + opensslError(),
                       "tls_server_config.client_ca_file");
    }
    SSL_CTX_set_client_CA_list(ctx, SSL_load_client_CA_file(tls.client_ca_file.c_str()));
  }
  SSL_CTX_set_verify(ctx, verifyMode(tls.client_auth_type), nullptr);
  return {};
}

constexpr std::array<const char*, 2> kCompatModules = {"libdagadvisor-civetweb-libcrypto.so",
                                                       "libdagadvisor-civetweb-openssl3.so"};

// Where the compatibility modules are: installed beside the binary (bin/../lib/dagadvisor/),
// else where the build put them.
std::vector<std::filesystem::path> compatDirs() {
  std::vector<std::filesystem::path> dirs;
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    dirs.push_back(exe.parent_path().parent_path() / "lib/dagadvisor");
  }
  dirs.emplace_back(DAGADVISOR_OPENSSL3_COMPAT_BUILD_DIR);
  return dirs;
}

void loadCompatModules() {
  for (const auto& dir : compatDirs()) {
    const auto ssl = dir / kCompatModules[1];
    if (::access(ssl.c_str(), R_OK) == 0) {
      for (const char* module : kCompatModules) {
        dlopen((dir / module).c_str(), RTLD_NOW | RTLD_NODELETE);
      }
      return;
    }
  }
}

// Exactly what civetweb will do: dlopen the unversioned names and look functions up in them.
Result<void> loadCompatAndCheck() {
  loadCompatModules();
  void* crypto = dlopen("libcrypto.so", RTLD_NOW | RTLD_NODELETE);
  void* ssl = dlopen("libssl.so", RTLD_NOW | RTLD_NODELETE);
  if (crypto == nullptr || ssl == nullptr) {
    return makeError(
        "TLS unavailable: civetweb cannot load libssl.so and libcrypto.so (install the modules "
        "of lib/dagadvisor/ beside the binary, or libssl-dev)");
  }
  if (dlsym(ssl, "SSL_get_peer_certificate") == nullptr) {
    return makeError(
        "TLS unavailable: civetweb 1.15 needs SSL_get_peer_certificate, which OpenSSL 3 lacks; "
        "the module libdagadvisor-civetweb-openssl3.so that supplies it was not found in "
        "lib/dagadvisor/ beside the binary");
  }
  return {};
}

}  // namespace

Result<void> validateTls(const TlsSettings& tls) {
  if (tls.cert_file.empty()) {
    return makeError("is required", "tls_server_config.cert_file");
  }
  if (tls.key_file.empty()) {
    return makeError("is required", "tls_server_config.key_file");
  }
  if (tls.min_version != "TLS12" && tls.min_version != "TLS13") {
    return makeError("must be TLS12 or TLS13, not \"" + tls.min_version + "\"",
                     "tls_server_config.min_version");
  }
  if (std::find(kClientAuthTypes.begin(), kClientAuthTypes.end(), tls.client_auth_type) ==
      kClientAuthTypes.end()) {
    return makeError("unknown value \"" + tls.client_auth_type + "\"",
                     "tls_server_config.client_auth_type");
  }
  if (tls.client_auth_type != "NoClientCert" && tls.client_ca_file.empty()) {
    return makeError("is required when client_auth_type is " + tls.client_auth_type,
                     "tls_server_config.client_ca_file");
  }
  const std::unique_ptr<SSL_CTX, decltype(&SSL_CTX_free)> ctx(SSL_CTX_new(TLS_server_method()),
                                                              &SSL_CTX_free);
  if (!ctx) {
    return makeError("cannot create a TLS context: " + opensslError(), "tls_server_config");
  }
  return applyTls(ctx.get(), tls);
}

Result<void> prepareCivetwebTls() {
  static std::once_flag once;
  static Result<void> prepared;
  std::call_once(once, [] { prepared = loadCompatAndCheck(); });
  return prepared;
}

bool configureServerTls(void* ssl_ctx, const TlsSettings& tls, std::string& error) {
  const auto applied = applyTls(static_cast<SSL_CTX*>(ssl_ctx), tls);
  if (!applied.ok()) {
    error = applied.error().describe();
  }
  return applied.ok();
}

}  // namespace dagadvisor::server
