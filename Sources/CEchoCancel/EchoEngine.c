/* The engine-independent part of include/CEchoCancel.h: the far ring and the alignment. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "EchoBackend.h"

/* One second of far end, more than any device reports (ALSA buffers here are 100-200 ms). */
#define RING_SAMPLES (CEC_RATE + 4 * CEC_BLOCK)
/* The reported delay moves by a period or so from block to block as the devices' buffers fill and
 * drain; moving the reference with it would shake the engines' filters. The alignment follows the
 * reports freely for the first HOLD_BLOCKS (the buffers fill, the engine has not converged yet),
 * then only when a report has stayed more than HYSTERESIS away for HOLD_BLOCKS in a row (a device
 * reopened, a sound server that changed its latency). The engine's own estimator covers the rest. */
#define HYSTERESIS (2 * CEC_BLOCK)
#define HOLD_BLOCKS 100
/* What is taken off the reported delay so the reference never comes after its echo: the reported
 * figures move by a period as the devices run; the engines' filters cover it. */
#define SAFETY_MARGIN (2 * CEC_BLOCK)

struct cec_engine {
    const cec_backend *backend;
    void *state;
    int16_t ring[RING_SAMPLES];
    long long far_written;
    long long near_processed;
    /* The delay the alignment uses (samples); blocks the reports have stayed away from it. */
    long long applied_delay;
    int away_blocks;
    int16_t aligned[CEC_BLOCK];
};

static const cec_backend *backend_for(int engine) {
    switch (engine) {
    case CEC_ENGINE_WEBRTC: return &cec_webrtc_backend;
    case CEC_ENGINE_SPEEX: return &cec_speex_backend;
    default: return NULL;
    }
}

int cec_library_load(int engine) {
    const cec_backend *backend = backend_for(engine);
    return backend != NULL && backend->load();
}

int cec_library_is_loaded(int engine) {
    const cec_backend *backend = backend_for(engine);
    return backend != NULL && backend->is_loaded();
}

const char *cec_library_error(int engine) {
    const cec_backend *backend = backend_for(engine);
    return backend != NULL ? backend->error() : "unknown echo engine";
}

cec_engine *cec_create(const cec_settings *settings) {
    const cec_backend *backend = backend_for(settings->engine);
    if (backend == NULL || !backend->load()) return NULL;
    cec_engine *engine = calloc(1, sizeof *engine);
    if (engine == NULL) return NULL;
    engine->backend = backend;
    engine->state = backend->create(settings);
    if (engine->state == NULL) {
        free(engine);
        return NULL;
    }
    return engine;
}

void cec_far(cec_engine *engine, const int16_t *block) {
    for (int i = 0; i < CEC_BLOCK; i++) engine->ring[(engine->far_written + i) % RING_SAMPLES] = block[i];
    engine->far_written += CEC_BLOCK;
}

/* The delay the alignment uses for this block: the reports, held steady (see HOLD_BLOCKS). */
static long long steady_delay(cec_engine *engine, long long reported) {
    if (engine->near_processed < (long long)HOLD_BLOCKS * CEC_BLOCK) {
        engine->applied_delay = reported;
    } else if (llabs(reported - engine->applied_delay) > HYSTERESIS) {
        if (++engine->away_blocks >= HOLD_BLOCKS) {
            engine->applied_delay = reported;
            engine->away_blocks = 0;
        }
    } else {
        engine->away_blocks = 0;
    }
    return engine->applied_delay;
}

int cec_near(cec_engine *engine, int16_t *block, int reported_delay) {
    long long delay = steady_delay(engine, reported_delay) - SAFETY_MARGIN;
    if (delay < 0) delay = 0;
    if (delay > RING_SAMPLES - 2 * CEC_BLOCK) delay = RING_SAMPLES - 2 * CEC_BLOCK;
    long long start = engine->near_processed - delay;
    /* Far and near advance together (one block each per tick); when the far block of this tick
     * has not come yet, the newest one there is stands in. */
    if (start + CEC_BLOCK > engine->far_written) start = engine->far_written - CEC_BLOCK;
    if (start < engine->far_written - (RING_SAMPLES - CEC_BLOCK)) start = engine->far_written - (RING_SAMPLES - CEC_BLOCK);
    for (int i = 0; i < CEC_BLOCK; i++) {
        long long at = start + i;
        engine->aligned[i] = at < 0 ? 0 : engine->ring[at % RING_SAMPLES];
    }
    engine->near_processed += CEC_BLOCK;
    return engine->backend->process(engine->state, block, engine->aligned);
}

void cec_stats_get(cec_engine *engine, cec_stats *stats) {
    stats->erle_db = NAN;
    stats->engine_delay_ms = -1;
    stats->echo_present = -1;
    engine->backend->stats(engine->state, stats);
}

void cec_destroy(cec_engine *engine) {
    if (engine == NULL) return;
    engine->backend->destroy(engine->state);
    free(engine);
}
