#ifndef CWEBSOCKETS_SHIM_H
#define CWEBSOCKETS_SHIM_H

#include <libwebsockets.h>

/// LWS_PRE is a chain of function-like macros; Swift cannot import it.
static inline size_t wcs_lws_pre(void) { return LWS_PRE; }

#endif
