/* The libmosquitto functions of MosquittoFunctions.h, forwarding to libmosquitto.so.1 opened on first use.
 * See include/CMosquitto.h. */
#include <CLibraryLoader.h>

#include "MosquittoFunctions.h"

#define CMOSQUITTO_RESULT_SLOT(type, name, parameters, arguments, failure) __typeof__(name) *name;
#define CMOSQUITTO_VOID_SLOT(name, parameters, arguments) __typeof__(name) *name;
#define CMOSQUITTO_RESULT_NAME(type, name, parameters, arguments, failure) #name,
#define CMOSQUITTO_VOID_NAME(name, parameters, arguments) #name,
#define CMOSQUITTO_RESULT_SLOT_ADDRESS(type, name, parameters, arguments, failure) (void **)&functions.name,
#define CMOSQUITTO_VOID_SLOT_ADDRESS(name, parameters, arguments) (void **)&functions.name,

/* One pointer per function, typed from libmosquitto's own prototypes; read only once loaded. */
static struct {
    CMOSQUITTO_RESULT_FUNCTIONS(CMOSQUITTO_RESULT_SLOT)
    CMOSQUITTO_VOID_FUNCTIONS(CMOSQUITTO_VOID_SLOT)
} functions;

static const char *const names[] = {CMOSQUITTO_RESULT_FUNCTIONS(CMOSQUITTO_RESULT_NAME) CMOSQUITTO_VOID_FUNCTIONS(CMOSQUITTO_VOID_NAME)};
static void **const slots[] = {CMOSQUITTO_RESULT_FUNCTIONS(CMOSQUITTO_RESULT_SLOT_ADDRESS) CMOSQUITTO_VOID_FUNCTIONS(CMOSQUITTO_VOID_SLOT_ADDRESS)};

static CLibrary library = CLIBRARY_INIT(CMOSQUITTO_LIBRARY_SONAME, names, slots, sizeof names / sizeof names[0], "libmosquitto1");

int cmosquitto_library_load(void) { return clibrary_load(&library); }
int cmosquitto_library_is_loaded(void) { return clibrary_is_loaded(&library); }
const char *cmosquitto_library_error(void) { return clibrary_error(&library); }
double cmosquitto_library_load_milliseconds(void) { return clibrary_load_milliseconds(&library); }

#define CMOSQUITTO_FORWARD_RESULT(type, name, parameters, arguments, failure) \
    type name parameters { \
        if (!clibrary_load(&library)) return failure; \
        return functions.name arguments; \
    }

#define CMOSQUITTO_FORWARD_VOID(name, parameters, arguments) \
    void name parameters { \
        if (clibrary_load(&library)) functions.name arguments; \
    }

CMOSQUITTO_RESULT_FUNCTIONS(CMOSQUITTO_FORWARD_RESULT)
CMOSQUITTO_VOID_FUNCTIONS(CMOSQUITTO_FORWARD_VOID)
