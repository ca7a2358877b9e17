#ifndef CMOSQUITTO_H
#define CMOSQUITTO_H

/*
 * libmosquitto (libmosquitto-dev headers), loaded on first use instead of linked.
 *
 * This target DEFINES the libmosquitto functions the Swift code calls (same names and prototypes
 * as <mosquitto.h>, listed in MosquittoFunctions.h); each forwards to the real function, resolved
 * with dlsym from dlopen("libmosquitto.so.1") the first time one is called (CLibraryLoader). Only
 * an agent configured with `[push] mqtt` maps libmosquitto. Without the library the functions
 * that return an error code return MOSQ_ERR_NOT_SUPPORTED, mosquitto_new returns NULL, the
 * others do nothing; callers check cmosquitto_library_load() first. Built with hidden visibility
 * (Package.swift).
 *
 * Thread: any; the load runs once, concurrent first callers wait for it.
 */

#include <mosquitto.h>

/* The soname the loader opens (Debian's libmosquitto1). */
#define CMOSQUITTO_LIBRARY_SONAME "libmosquitto.so.1"

/* Loads libmosquitto once; 1 when usable, 0 when not (the reason in cmosquitto_library_error()). */
int cmosquitto_library_load(void);

/* 1 when libmosquitto is loaded; never starts a load. */
int cmosquitto_library_is_loaded(void);

/* Why the load failed, or NULL when loaded or not tried yet. Lives as long as the process. */
const char *cmosquitto_library_error(void);

/* Wall time of the load in milliseconds; 0 when not loaded. */
double cmosquitto_library_load_milliseconds(void);

#endif
