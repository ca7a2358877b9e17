#ifndef CWEBSOCKETS_SHIM_H
#define CWEBSOCKETS_SHIM_H

#include <libwebsockets.h>
/* X509_check_ip_asc: libwebsockets.h pulls in <openssl/ssl.h> but not the v3 helpers. */
#include <openssl/x509v3.h>

/// LWS_PRE is a chain of function-like macros; Swift cannot import it.
static inline size_t wcs_lws_pre(void) { return LWS_PRE; }

#endif
