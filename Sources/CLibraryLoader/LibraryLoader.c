/* See include/CLibraryLoader.h. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <time.h>

#include "CLibraryLoader.h"

static double now_milliseconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1000.0 + (double)t.tv_nsec / 1e6;
}

/* Opens the library and fills every slot; on failure writes why into library->error and returns 0
 * (slots may then be partly filled: nobody reads them unless the outcome says loaded). */
static int open_complete(CLibrary *library) {
    void *handle = dlopen(library->soname, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        const char *reason = dlerror();
        snprintf(library->error, sizeof library->error, "cannot load %s: %s%s%s%s", library->soname,
                 reason != NULL ? reason : "unknown dlopen error", library->install_hint != NULL ? " (install " : "",
                 library->install_hint != NULL ? library->install_hint : "", library->install_hint != NULL ? ")" : "");
        return 0;
    }
    for (size_t i = 0; i < library->count; i++) {
        if ((*library->slots[i] = dlsym(handle, library->names[i])) == NULL) {
            snprintf(library->error, sizeof library->error, "%s lacks %s", library->soname, library->names[i]);
            dlclose(handle);
            return 0;
        }
    }
    return 1;
}

int clibrary_load(CLibrary *library) {
    int outcome = atomic_load_explicit(&library->outcome, memory_order_acquire);
    if (outcome != 0) return outcome == 1;
    pthread_mutex_lock(&library->lock);
    outcome = atomic_load_explicit(&library->outcome, memory_order_relaxed);
    if (outcome == 0) {
        double start = now_milliseconds();
        outcome = open_complete(library) ? 1 : 2;
        if (outcome == 1) library->milliseconds = now_milliseconds() - start;
        atomic_store_explicit(&library->outcome, outcome, memory_order_release);
    }
    pthread_mutex_unlock(&library->lock);
    return outcome == 1;
}

const char *clibrary_error(CLibrary *library) {
    return atomic_load_explicit(&library->outcome, memory_order_acquire) == 2 ? library->error : NULL;
}

double clibrary_load_milliseconds(CLibrary *library) {
    return clibrary_is_loaded(library) ? library->milliseconds : 0;
}
