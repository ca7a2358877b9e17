/* Opens libwebrtc_audio_processing.so.1 on first use for WebRTCEngine.cpp (CLibraryLoader is C:
 * its <stdatomic.h> is not C++'s). Resolves the one factory the engine calls by name, and the
 * library's own identifiers of the Config options the engine sets (see WebRTCEngine.cpp). */
#include <CLibraryLoader.h>

#include "WebRTCLoader.h"

void *cec_webrtc_create_apm;
void *cec_webrtc_extended_filter_id;
void *cec_webrtc_delay_agnostic_id;
void *cec_webrtc_experimental_agc_id;

static const char *const names[] = {
    "_ZN6webrtc15AudioProcessing6CreateERKNS_6ConfigE",
    "_ZZN6webrtc6Config10identifierINS_14ExtendedFilterEEEPvvE14id_placeholder",
    "_ZZN6webrtc6Config10identifierINS_13DelayAgnosticEEEPvvE14id_placeholder",
    "_ZZN6webrtc6Config10identifierINS_15ExperimentalAgcEEEPvvE14id_placeholder",
};
static void **const slots[] = {&cec_webrtc_create_apm, &cec_webrtc_extended_filter_id, &cec_webrtc_delay_agnostic_id,
                               &cec_webrtc_experimental_agc_id};
static CLibrary library = CLIBRARY_INIT("libwebrtc_audio_processing.so.1", names, slots, sizeof names / sizeof names[0],
                                        "libwebrtc-audio-processing1");

int cec_webrtc_load(void) { return clibrary_load(&library); }
int cec_webrtc_is_loaded(void) { return clibrary_is_loaded(&library); }
const char *cec_webrtc_error(void) { return clibrary_error(&library); }
