#ifndef CLIBRARYLOADER_H
#define CLIBRARYLOADER_H

/*
 * A C library opened on first use (dlopen) instead of linked: the shared part of CALSA and CSoxr.
 *
 * A target that wraps a library this way defines the library's functions itself, with the same
 * names and prototypes as the library's header, each forwarding to a pointer that
 * clibrary_load() fills with dlsym. The process maps the library (and what only it pulls in) at
 * the first call of one of those functions, not at start: an idle agent never pays for a sound
 * card or a resampler it may never use.
 *
 * The load runs once per library (dlopen RTLD_NOW | RTLD_LOCAL, so a broken dependency shows at
 * once and the library's symbols stay out of the global scope; then dlsym of every name) and is
 * all or nothing: one missing function and the library counts as not loaded, so a forwarder never
 * calls through a NULL pointer. The handle is never closed.
 *
 * Thread: any. Concurrent first callers wait for the one load (a mutex); once it ran, a check is
 * one atomic load.
 */

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

/* One library to open on first use. Define it statically with CLIBRARY_INIT; the loader owns the
 * fields after that. */
typedef struct {
    /* The file dlopen opens (a soname such as "libasound.so.2"). */
    const char *soname;
    /* The functions to resolve, and where each pointer goes (same order, `count` of each). */
    const char *const *names;
    void **const *slots;
    size_t count;
    /* A hint appended to the reason when the library cannot be opened (the package to install). */
    const char *install_hint;
    pthread_mutex_t lock;
    /* 0: not tried yet, 1: loaded, 2: failed. Written once, under `lock`. */
    atomic_int outcome;
    char error[512];
    double milliseconds;
} CLibrary;

#define CLIBRARY_INIT(soname_, names_, slots_, count_, hint_) \
    { .soname = (soname_), .names = (names_), .slots = (slots_), .count = (count_), .install_hint = (hint_), \
      .lock = PTHREAD_MUTEX_INITIALIZER }

/* Loads the library once (later calls return the first outcome). 1 when usable, 0 when not. */
int clibrary_load(CLibrary *library);

/* 1 when the library is loaded; never starts a load. The forwarders' fast path. */
static inline int clibrary_is_loaded(CLibrary *library) {
    return atomic_load_explicit(&library->outcome, memory_order_acquire) == 1;
}

/* Why the load failed ("cannot load libsoxr.so.0: ... (install libsoxr0)" or "libsoxr.so.0
 * lacks soxr_create"), or NULL when loaded or not tried yet. Lives as long as the process. */
const char *clibrary_error(CLibrary *library);

/* Wall time of the load (dlopen + dlsym of every name), in milliseconds; 0 when not loaded. */
double clibrary_load_milliseconds(CLibrary *library);

#endif
