/*
 * The libnice functions the Swift code calls, defined here with libnice's own names and
 * prototypes (the compiler checks each against <nice/agent.h>): each loads the library if needed
 * and calls the real function. Without the library they return 0 / NULL / FALSE, libnice's own
 * failure values, or do nothing, and warn once; callers check cnice_library_load() first. Built
 * with hidden visibility (Package.swift), so libnice's calls to its own exported functions still
 * bind inside libnice, not to these.
 */
#include "NiceFunctionTable.h"

static void warn_unloaded(const char *name) {
    static gsize warned;
    if (g_once_init_enter(&warned)) {
        const char *why = cnice_library_error();
        g_warning("%s called without libnice: %s", name, why != NULL ? why : "not loaded");
        g_once_init_leave(&warned, 1);
    }
}

#define CNICE_FORWARD_RESULT(type, name, parameters, arguments) \
    type name parameters { \
        if (!cnice_library_load()) { \
            warn_unloaded(#name); \
            return (type)0; \
        } \
        return cnice_functions.name arguments; \
    }

#define CNICE_FORWARD_VOID(name, parameters, arguments) \
    void name parameters { \
        if (!cnice_library_load()) { \
            warn_unloaded(#name); \
            return; \
        } \
        cnice_functions.name arguments; \
    }

CNICE_RESULT_FUNCTIONS(CNICE_FORWARD_RESULT)
CNICE_VOID_FUNCTIONS(CNICE_FORWARD_VOID)
