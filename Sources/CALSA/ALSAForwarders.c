/* The alsa-lib functions of ALSAFunctions.h, forwarding to libasound.so.2 opened on first use.
 * See include/CALSA.h. */
#include <CLibraryLoader.h>

#include "ALSAFunctions.h"

#define CALSA_SLOT(type, name, parameters, arguments, failure) __typeof__(name) *name;
#define CALSA_NAME(type, name, parameters, arguments, failure) #name,
#define CALSA_SLOT_ADDRESS(type, name, parameters, arguments, failure) (void **)&functions.name,

/* One pointer per function, typed from alsa-lib's own prototypes; read only once loaded. */
static struct {
    CALSA_FUNCTIONS(CALSA_SLOT)
} functions;

static const char *const names[] = {CALSA_FUNCTIONS(CALSA_NAME)};
static void **const slots[] = {CALSA_FUNCTIONS(CALSA_SLOT_ADDRESS)};

static CLibrary library = CLIBRARY_INIT(CALSA_LIBRARY_SONAME, names, slots, sizeof names / sizeof names[0], "libasound2");

int calsa_library_load(void) { return clibrary_load(&library); }
int calsa_library_is_loaded(void) { return clibrary_is_loaded(&library); }
const char *calsa_library_error(void) { return clibrary_error(&library); }
double calsa_library_load_milliseconds(void) { return clibrary_load_milliseconds(&library); }

#define CALSA_FORWARD(type, name, parameters, arguments, failure) \
    type name parameters { \
        if (!clibrary_load(&library)) return failure; \
        return functions.name arguments; \
    }

CALSA_FUNCTIONS(CALSA_FORWARD)
