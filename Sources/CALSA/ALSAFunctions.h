#ifndef CALSA_FUNCTIONS_H
#define CALSA_FUNCTIONS_H

/*
 * The alsa-lib functions the loader resolves and the forwarders define, as an X-macro list.
 * Private to the CALSA target. Adding one the Swift code calls: one line here (the compiler then
 * checks it against the prototype in <alsa/asoundlib.h>, and the loader requires the symbol).
 *
 * X(return type, name, (parameters), (arguments), value returned without the library)
 */

#include <errno.h>

#include "include/CALSA.h"

#define CALSA_FUNCTIONS(X) \
    X(int, snd_pcm_open, (snd_pcm_t **pcm, const char *name, snd_pcm_stream_t stream, int mode), \
      (pcm, name, stream, mode), -ELIBACC) \
    X(int, snd_pcm_set_params, \
      (snd_pcm_t *pcm, snd_pcm_format_t format, snd_pcm_access_t access, unsigned int channels, unsigned int rate, \
       int soft_resample, unsigned int latency), \
      (pcm, format, access, channels, rate, soft_resample, latency), -ELIBACC) \
    X(int, snd_pcm_get_params, (snd_pcm_t *pcm, snd_pcm_uframes_t *buffer_size, snd_pcm_uframes_t *period_size), \
      (pcm, buffer_size, period_size), -ELIBACC) \
    X(snd_pcm_sframes_t, snd_pcm_readi, (snd_pcm_t *pcm, void *buffer, snd_pcm_uframes_t size), (pcm, buffer, size), -ELIBACC) \
    X(snd_pcm_sframes_t, snd_pcm_writei, (snd_pcm_t *pcm, const void *buffer, snd_pcm_uframes_t size), (pcm, buffer, size), \
      -ELIBACC) \
    X(int, snd_pcm_delay, (snd_pcm_t *pcm, snd_pcm_sframes_t *delayp), (pcm, delayp), -ELIBACC) \
    X(int, snd_pcm_recover, (snd_pcm_t *pcm, int err, int silent), (pcm, err, silent), -ELIBACC) \
    X(int, snd_pcm_drain, (snd_pcm_t *pcm), (pcm), -ELIBACC) \
    X(int, snd_pcm_close, (snd_pcm_t *pcm), (pcm), -ELIBACC) \
    X(const char *, snd_strerror, (int errnum), (errnum), "alsa-lib is not loaded") \
    X(int, snd_config_update_free_global, (void), (), -ELIBACC)

#endif
