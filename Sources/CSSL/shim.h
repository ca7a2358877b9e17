#ifndef CSSL_SHIM_H
#define CSSL_SHIM_H

#include <openssl/ssl.h>

#endif
