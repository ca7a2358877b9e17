#ifndef CALSA_H
#define CALSA_H

/*
 * alsa-lib's PCM API (libasound2-dev headers), loaded on first use instead of linked.
 *
 * This target DEFINES the alsa-lib functions the Swift code calls (same names and prototypes as
 * <alsa/asoundlib.h>, listed in ALSAFunctions.h); each forwards to the real function, resolved
 * with dlsym from dlopen("libasound.so.2") the first time one is called (CLibraryLoader). An agent
 * that never opens an `alsa:` device never maps alsa-lib. Without the library a forwarder returns
 * -ELIBACC (NULL / a fixed text for snd_strerror); callers check calsa_library_load() first and
 * report calsa_library_error(). Built with hidden visibility (Package.swift), so alsa-lib and the
 * plugins it loads keep binding to alsa-lib's own functions.
 *
 * snd_pcm_set_params/get_params cover the configuration, so none of the hw_params alloca macros
 * is needed from Swift.
 *
 * Thread: any; the load runs once, concurrent first callers wait for it.
 */

#include <alsa/asoundlib.h>

/* The soname the loader opens (Debian's libasound2). */
#define CALSA_LIBRARY_SONAME "libasound.so.2"

/* Loads alsa-lib once; 1 when usable, 0 when not (the reason in calsa_library_error()). */
int calsa_library_load(void);

/* 1 when alsa-lib is loaded; never starts a load. */
int calsa_library_is_loaded(void);

/* Why the load failed, or NULL when loaded or not tried yet. Lives as long as the process. */
const char *calsa_library_error(void);

/* Wall time of the load in milliseconds; 0 when not loaded. */
double calsa_library_load_milliseconds(void);

#endif
