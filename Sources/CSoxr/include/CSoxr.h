#ifndef CSOXR_H
#define CSOXR_H

/*
 * libsoxr (libsoxr-dev headers), loaded on first use instead of linked.
 *
 * This target DEFINES the libsoxr functions the Swift code calls (same names and prototypes as
 * <soxr.h>, listed in SoxrFunctions.h); each forwards to the real function, resolved with dlsym
 * from dlopen("libsoxr.so.0") the first time one is called (CLibraryLoader). Only a call or a
 * file that needs another sample rate (G.711's 8 kHz, a 44.1 kHz WAV) maps libsoxr and the OpenMP
 * runtime (libgomp) it links. Without the library soxr_create returns NULL with the loader's
 * reason as its error, soxr_process and soxr_clear return that reason; callers check
 * csoxr_library_load() first. Built with hidden visibility (Package.swift).
 *
 * Thread: any; the load runs once, concurrent first callers wait for it.
 */

#include <soxr.h>

/* The soname the loader opens (Debian's libsoxr0). */
#define CSOXR_LIBRARY_SONAME "libsoxr.so.0"

/* Loads libsoxr once; 1 when usable, 0 when not (the reason in csoxr_library_error()). */
int csoxr_library_load(void);

/* 1 when libsoxr is loaded; never starts a load. */
int csoxr_library_is_loaded(void);

/* Why the load failed, or NULL when loaded or not tried yet. Lives as long as the process. */
const char *csoxr_library_error(void);

/* Wall time of the load in milliseconds; 0 when not loaded. */
double csoxr_library_load_milliseconds(void);

/* soxr_process(resampler, NULL, 0, ...) signals end of input and drains the filter tail.
 * Swift can pass nil too; the wrapper just names the intent. */
static inline soxr_error_t wcs_soxr_drain(soxr_t s, float *out, size_t olen, size_t *odone) {
    return soxr_process(s, NULL, 0, NULL, out, olen, odone);
}

#endif
