/* Debian 12's civetweb 1.15 was built for the OpenSSL 1.1 API and loads OpenSSL at run time with
 * dlopen("libssl.so") and dlsym(). OpenSSL 3 no longer exports SSL_get_peer_certificate (it became
 * a macro for SSL_get1_peer_certificate), so civetweb's table holds a null pointer that every
 * worker calls after the TLS handshake: the server dies at the first HTTPS connection.
 *
 * This module has the soname "libssl.so" and depends on libssl.so.3. The daemon loads it (see
 * server/tls.cpp) before civetweb starts TLS; civetweb's dlopen("libssl.so") is then answered
 * with the already-loaded object of that soname, so its symbol lookups search this module first
 * and libssl.so.3 behind it, and find the one function that was missing. Both functions return the
 * certificate with its reference count raised (the 1.1 semantics civetweb frees against). */

typedef struct ssl_st SSL;
typedef struct x509_st X509;

X509* SSL_get1_peer_certificate(const SSL* ssl);

X509* SSL_get_peer_certificate(const SSL* ssl) {
  return SSL_get1_peer_certificate(ssl);
}
