#pragma once

#include <string>

#include "common/result.h"

namespace dagadvisor::server {

/// TLS for the daemon's own server: web-config.yml's `tls_server_config`, the subset we honour.
struct TlsSettings {
  std::string cert_file;       // PEM server certificate (chain)
  std::string key_file;        // PEM private key
  std::string client_ca_file;  // CAs for client certificates; "" = none asked
  /// Prometheus' client_auth_type: NoClientCert, RequestClientCert, RequireAnyClientCert,
  /// VerifyClientCertIfGiven or RequireAndVerifyClientCert. Any but NoClientCert needs
  /// client_ca_file: a client certificate is always verified against it when sent.
  std::string client_auth_type = "NoClientCert";
  std::string min_version = "TLS12";  // TLS12 or TLS13

  bool operator==(const TlsSettings&) const = default;
};

/// Checks the settings' values and that the files load as a matching certificate and key (and a
/// CA list), so that a bad file is refused when the config is read, not at the first connection.
/// The Error's field is the web-config key (e.g. "tls_server_config.key_file").
Result<void> validateTls(const TlsSettings& tls);

/// Makes civetweb able to serve TLS in this process (see openssl3_compat/): loads the OpenSSL 3
/// compatibility module once and checks that civetweb's OpenSSL lookup now finds every function.
/// An Error says why TLS cannot be served; call before starting a TLS server.
Result<void> prepareCivetwebTls();

/// Configures civetweb's SSL_CTX (passed as void*, civetweb's type) from the settings: the
/// certificate and key, the minimum version, client certificate verification. False with
/// `error` set when it cannot.
bool configureServerTls(void* ssl_ctx, const TlsSettings& tls, std::string& error);

}  // namespace dagadvisor::server
