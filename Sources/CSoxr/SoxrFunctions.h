#ifndef CSOXR_FUNCTIONS_H
#define CSOXR_FUNCTIONS_H

/*
 * The libsoxr functions the loader resolves and the forwarders define, as X-macro lists. Private
 * to the CSoxr target. Adding one the Swift code calls: one line here (the compiler then checks it
 * against the prototype in <soxr.h>, and the loader requires the symbol).
 */

#include "include/CSoxr.h"

/* X(return type, name, (parameters), (arguments), value returned without the library) */
#define CSOXR_RESULT_FUNCTIONS(X) \
    X(soxr_t, soxr_create, \
      (double input_rate, double output_rate, unsigned num_channels, soxr_error_t *error, soxr_io_spec_t const *io_spec, \
       soxr_quality_spec_t const *quality_spec, soxr_runtime_spec_t const *runtime_spec), \
      (input_rate, output_rate, num_channels, error, io_spec, quality_spec, runtime_spec), \
      (error != NULL ? (void)(*error = csoxr_unloaded_reason()) : (void)0, (soxr_t)NULL)) \
    X(soxr_error_t, soxr_process, \
      (soxr_t resampler, soxr_in_t in, size_t ilen, size_t *idone, soxr_out_t out, size_t olen, size_t *odone), \
      (resampler, in, ilen, idone, out, olen, odone), csoxr_unloaded_reason()) \
    X(soxr_error_t, soxr_clear, (soxr_t resampler), (resampler), csoxr_unloaded_reason()) \
    X(soxr_io_spec_t, soxr_io_spec, (soxr_datatype_t itype, soxr_datatype_t otype), (itype, otype), (soxr_io_spec_t){0}) \
    X(soxr_quality_spec_t, soxr_quality_spec, (unsigned long recipe, unsigned long flags), (recipe, flags), \
      (soxr_quality_spec_t){0}) \
    X(soxr_runtime_spec_t, soxr_runtime_spec, (unsigned num_threads), (num_threads), (soxr_runtime_spec_t){0})

/* X(name, (parameters), (arguments)): functions without a result (without the library: nothing). */
#define CSOXR_VOID_FUNCTIONS(X) \
    X(soxr_delete, (soxr_t resampler), (resampler))

#endif
