/*
 * Loads libnice once (pthread_once), on whichever thread needs it first: dlopen with RTLD_NOW
 * (every relocation now, so a broken dependency shows here and not in a call) and RTLD_LOCAL (its
 * symbols stay out of the global scope), then dlsym of every function in NiceFunctionTable.h. All
 * or nothing: one missing function and the library counts as not loaded. The handle is never
 * closed (GObject types cannot be unregistered). See include/CNice.h.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "NiceFunctionTable.h"

CNiceFunctionTable cnice_functions;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
/* 0: not tried or under way, 1: loaded, 2: failed. Written once, at the end of load(). */
static atomic_int outcome;
static char error_text[512];
static char path_text[PATH_MAX];
static double load_milliseconds;

#define CNICE_RESOLVE_RESULT(type, name, parameters, arguments) \
    if ((*(void **)&table->name = dlsym(handle, #name)) == NULL) return #name;
#define CNICE_RESOLVE_VOID(name, parameters, arguments) \
    if ((*(void **)&table->name = dlsym(handle, #name)) == NULL) return #name;
#define CNICE_RESOLVE_GOBJECT(name) \
    if ((*(void **)&table->name = dlsym(handle, #name)) == NULL) return #name;

/* Fills `table` from `handle` (the library and its dependencies); the first missing name, or NULL. */
static const char *resolve(void *handle, CNiceFunctionTable *table) {
    CNICE_RESULT_FUNCTIONS(CNICE_RESOLVE_RESULT)
    CNICE_VOID_FUNCTIONS(CNICE_RESOLVE_VOID)
    CNICE_GOBJECT_FUNCTIONS(CNICE_RESOLVE_GOBJECT)
    return NULL;
}

/* Opens `file` and resolves every function into `table`; on failure writes why into `error`. */
static void *open_complete(const char *file, CNiceFunctionTable *table, char *error, size_t error_size) {
    void *handle = dlopen(file, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        const char *reason = dlerror();
        snprintf(error, error_size, "cannot load %s: %s", file, reason != NULL ? reason : "unknown dlopen error");
        return NULL;
    }
    const char *missing = resolve(handle, table);
    if (missing != NULL) {
        snprintf(error, error_size, "%s lacks %s (libnice 0.1.19 or newer is needed)", file, missing);
        dlclose(handle);
        return NULL;
    }
    return handle;
}

static double now_milliseconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1000.0 + (double)t.tv_nsec / 1e6;
}

static void load(void) {
    double start = now_milliseconds();
    CNiceFunctionTable table;
    void *handle = open_complete(CNICE_LIBRARY_SONAME, &table, error_text, sizeof error_text);
    if (handle == NULL) {
        atomic_store_explicit(&outcome, 2, memory_order_release);
        return;
    }
    cnice_functions = table;
    load_milliseconds = now_milliseconds() - start;
    struct link_map *map = NULL;
    if (dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map != NULL && map->l_name != NULL) {
        if (realpath(map->l_name, path_text) == NULL) snprintf(path_text, sizeof path_text, "%s", map->l_name);
    } else {
        snprintf(path_text, sizeof path_text, "%s", CNICE_LIBRARY_SONAME);
    }
    atomic_store_explicit(&outcome, 1, memory_order_release);
}

int cnice_library_load(void) {
    pthread_once(&load_once, load);
    return cnice_library_is_loaded();
}

int cnice_library_is_loaded(void) {
    return atomic_load_explicit(&outcome, memory_order_acquire) == 1;
}

const char *cnice_library_error(void) {
    return atomic_load_explicit(&outcome, memory_order_acquire) == 2 ? error_text : NULL;
}

const char *cnice_library_path(void) {
    return cnice_library_is_loaded() ? path_text : NULL;
}

double cnice_library_load_milliseconds(void) {
    return cnice_library_is_loaded() ? load_milliseconds : 0;
}

int cnice_library_probe(const char *file, char *error, size_t error_size) {
    CNiceFunctionTable table;
    char reason[512];
    void *handle = open_complete(file, &table, reason, sizeof reason);
    if (handle == NULL) {
        if (error != NULL && error_size > 0) snprintf(error, error_size, "%s", reason);
        return 0;
    }
    dlclose(handle);
    return 1;
}
