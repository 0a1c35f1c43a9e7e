/* civetweb 1.15 also loads dlopen("libcrypto.so"), a name only Debian's libssl-dev provides.
 * This empty module has the soname "libcrypto.so" and depends on libcrypto.so.3: once loaded
 * (see server/tls.cpp), civetweb's dlopen is answered with it and its lookups reach
 * libcrypto.so.3, so the runtime needs no development package. */
typedef int dagadvisor_libcrypto_alias_unused;
