/* The libsoxr functions of SoxrFunctions.h, forwarding to libsoxr.so.0 opened on first use.
 * See include/CSoxr.h. */
#include <CLibraryLoader.h>

#include "SoxrFunctions.h"

#define CSOXR_RESULT_SLOT(type, name, parameters, arguments, failure) __typeof__(name) *name;
#define CSOXR_VOID_SLOT(name, parameters, arguments) __typeof__(name) *name;
#define CSOXR_RESULT_NAME(type, name, parameters, arguments, failure) #name,
#define CSOXR_VOID_NAME(name, parameters, arguments) #name,
#define CSOXR_RESULT_SLOT_ADDRESS(type, name, parameters, arguments, failure) (void **)&functions.name,
#define CSOXR_VOID_SLOT_ADDRESS(name, parameters, arguments) (void **)&functions.name,

/* One pointer per function, typed from libsoxr's own prototypes; read only once loaded. */
static struct {
    CSOXR_RESULT_FUNCTIONS(CSOXR_RESULT_SLOT)
    CSOXR_VOID_FUNCTIONS(CSOXR_VOID_SLOT)
} functions;

static const char *const names[] = {CSOXR_RESULT_FUNCTIONS(CSOXR_RESULT_NAME) CSOXR_VOID_FUNCTIONS(CSOXR_VOID_NAME)};
static void **const slots[] = {CSOXR_RESULT_FUNCTIONS(CSOXR_RESULT_SLOT_ADDRESS) CSOXR_VOID_FUNCTIONS(CSOXR_VOID_SLOT_ADDRESS)};

static CLibrary library = CLIBRARY_INIT(CSOXR_LIBRARY_SONAME, names, slots, sizeof names / sizeof names[0], "libsoxr0");

int csoxr_library_load(void) { return clibrary_load(&library); }
int csoxr_library_is_loaded(void) { return clibrary_is_loaded(&library); }
const char *csoxr_library_error(void) { return clibrary_error(&library); }
double csoxr_library_load_milliseconds(void) { return clibrary_load_milliseconds(&library); }

/* What a forwarder reports as libsoxr's error when the library could not be loaded. */
static soxr_error_t csoxr_unloaded_reason(void) {
    const char *reason = clibrary_error(&library);
    return reason != NULL ? reason : "libsoxr is not loaded";
}

#define CSOXR_FORWARD_RESULT(type, name, parameters, arguments, failure) \
    type name parameters { \
        if (!clibrary_load(&library)) return failure; \
        return functions.name arguments; \
    }

#define CSOXR_FORWARD_VOID(name, parameters, arguments) \
    void name parameters { \
        if (clibrary_load(&library)) functions.name arguments; \
    }

CSOXR_RESULT_FUNCTIONS(CSOXR_FORWARD_RESULT)
CSOXR_VOID_FUNCTIONS(CSOXR_FORWARD_VOID)
