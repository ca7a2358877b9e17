#ifndef CSSL_SHIM_H
#define CSSL_SHIM_H

#include <openssl/ssl.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/x509.h>

/* Static inline wrappers for OpenSSL function-like macros that Swift cannot import, and
 * static const re-exports of SSL_OP_* (defined via the function-like SSL_OP_BIT in 3.0).
 * Only add to this file: WCSSession imports this module too. */

/* SSL_CTX configuration macros (SSL_CTX_ctrl). */
static inline long cssl_ctx_set_min_proto_version(SSL_CTX *ctx, int version) {
    return SSL_CTX_set_min_proto_version(ctx, version);
}
static inline long cssl_ctx_set_max_proto_version(SSL_CTX *ctx, int version) {
    return SSL_CTX_set_max_proto_version(ctx, version);
}
static inline long cssl_ctx_set1_groups_list(SSL_CTX *ctx, const char *list) {
    return SSL_CTX_set1_groups_list(ctx, list);
}

/* DTLS macros (SSL_ctrl). */
static inline long cssl_dtls_set_link_mtu(SSL *ssl, long mtu) {
    return DTLS_set_link_mtu(ssl, mtu);
}
/* 1 and *tv = time left when a retransmission timer runs, 0 when none does. */
static inline long cssl_dtls_get_timeout(SSL *ssl, struct timeval *tv) {
    return DTLSv1_get_timeout(ssl, tv);
}
/* 0 when no timer expired, 1 after retransmitting, -1 on failure (too many timeouts). */
static inline long cssl_dtls_handle_timeout(SSL *ssl) {
    return DTLSv1_handle_timeout(ssl);
}

/* BIO retry-flag macros, for BIOs implemented in Swift. */
static inline void cssl_bio_set_retry_read(BIO *bio) {
    BIO_set_retry_read(bio);
}
static inline void cssl_bio_clear_retry_flags(BIO *bio) {
    BIO_clear_retry_flags(bio);
}

/* SSL_OP_* options. */
static const uint64_t CSSL_OP_NO_QUERY_MTU = SSL_OP_NO_QUERY_MTU;
static const uint64_t CSSL_OP_NO_TICKET = SSL_OP_NO_TICKET;
static const uint64_t CSSL_OP_NO_RENEGOTIATION = SSL_OP_NO_RENEGOTIATION;
static const uint64_t CSSL_OP_CIPHER_SERVER_PREFERENCE = SSL_OP_CIPHER_SERVER_PREFERENCE;
static const uint64_t CSSL_OP_NO_COMPRESSION = SSL_OP_NO_COMPRESSION;

#endif
