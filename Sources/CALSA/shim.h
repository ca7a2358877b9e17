#ifndef CALSA_SHIM_H
#define CALSA_SHIM_H

/* alsa-lib's PCM API (libasound2-dev). snd_pcm_set_params/get_params cover the configuration,
 * so none of the hw_params alloca macros is needed from Swift. */
#include <alsa/asoundlib.h>

#endif
