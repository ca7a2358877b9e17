#ifndef CSOXR_SHIM_H
#define CSOXR_SHIM_H

#include <soxr.h>

/* soxr_process(resampler, NULL, 0, ...) signals end of input and drains the filter tail.
 * Swift can pass nil too; the wrapper just names the intent. */
static inline soxr_error_t wcs_soxr_drain(soxr_t s, float *out, size_t olen, size_t *odone) {
    return soxr_process(s, NULL, 0, NULL, out, olen, odone);
}

#endif
