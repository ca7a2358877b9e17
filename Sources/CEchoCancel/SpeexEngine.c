/* CEC_ENGINE_SPEEX: speexdsp's MDF echo canceller and preprocessor, libspeexdsp.so.1 opened on
 * first use. */
#include <CLibraryLoader.h>
#include <math.h>
#include <speex/speex_echo.h>
#include <speex/speex_preprocess.h>
#include <stdlib.h>

#include "EchoBackend.h"

static struct {
    __typeof__(speex_echo_state_init) *echo_init;
    __typeof__(speex_echo_state_destroy) *echo_destroy;
    __typeof__(speex_echo_cancellation) *echo_cancellation;
    __typeof__(speex_echo_ctl) *echo_ctl;
    __typeof__(speex_preprocess_state_init) *preprocess_init;
    __typeof__(speex_preprocess_state_destroy) *preprocess_destroy;
    __typeof__(speex_preprocess_run) *preprocess_run;
    __typeof__(speex_preprocess_ctl) *preprocess_ctl;
} speex;

static const char *const names[] = {"speex_echo_state_init", "speex_echo_state_destroy", "speex_echo_cancellation",
                                    "speex_echo_ctl", "speex_preprocess_state_init", "speex_preprocess_state_destroy",
                                    "speex_preprocess_run", "speex_preprocess_ctl"};
static void **const slots[] = {(void **)&speex.echo_init, (void **)&speex.echo_destroy, (void **)&speex.echo_cancellation,
                               (void **)&speex.echo_ctl, (void **)&speex.preprocess_init, (void **)&speex.preprocess_destroy,
                               (void **)&speex.preprocess_run, (void **)&speex.preprocess_ctl};
static CLibrary library = CLIBRARY_INIT("libspeexdsp.so.1", names, slots, sizeof names / sizeof names[0], "libspeexdsp1");

/* A 2nd-order Butterworth high-pass at 80 Hz (48 kHz), direct form I. */
typedef struct {
    double x1, x2, y1, y2;
} biquad;

static const double hp_b0 = 0.9926225427561189, hp_b1 = -1.9852450855122379, hp_b2 = 0.9926225427561189;
static const double hp_a1 = -1.9851906578962613, hp_a2 = 0.9852995131282146;

typedef struct {
    SpeexEchoState *echo;
    SpeexPreprocessState *preprocess;
    int high_pass;
    biquad filter;
    int16_t out[CEC_BLOCK];
} speex_state;

static int load(void) { return clibrary_load(&library); }
static int is_loaded(void) { return clibrary_is_loaded(&library); }
static const char *error(void) { return clibrary_error(&library); }

static void destroy(void *opaque) {
    speex_state *state = opaque;
    if (state->preprocess != NULL) speex.preprocess_destroy(state->preprocess);
    if (state->echo != NULL) speex.echo_destroy(state->echo);
    free(state);
}

static void *create(const cec_settings *settings) {
    speex_state *state = calloc(1, sizeof *state);
    if (state == NULL) return NULL;
    state->high_pass = settings->high_pass;
    int rate = CEC_RATE;
    if (settings->echo_cancel) {
        int tail = (settings->tail_ms > 0 ? settings->tail_ms : 200) * (CEC_RATE / 1000);
        state->echo = speex.echo_init(CEC_BLOCK, tail);
        if (state->echo == NULL) {
            destroy(state);
            return NULL;
        }
        speex.echo_ctl(state->echo, SPEEX_ECHO_SET_SAMPLING_RATE, &rate);
    }
    if (settings->echo_cancel || settings->noise_suppression || settings->auto_gain) {
        state->preprocess = speex.preprocess_init(CEC_BLOCK, CEC_RATE);
        if (state->preprocess == NULL) {
            destroy(state);
            return NULL;
        }
        int on = settings->noise_suppression, agc = settings->auto_gain;
        speex.preprocess_ctl(state->preprocess, SPEEX_PREPROCESS_SET_DENOISE, &on);
        speex.preprocess_ctl(state->preprocess, SPEEX_PREPROCESS_SET_AGC, &agc);
        if (state->echo != NULL) speex.preprocess_ctl(state->preprocess, SPEEX_PREPROCESS_SET_ECHO_STATE, state->echo);
    }
    return state;
}

static int process(void *opaque, int16_t *near_block, const int16_t *far_block) {
    speex_state *state = opaque;
    if (state->high_pass) {
        biquad *f = &state->filter;
        for (int i = 0; i < CEC_BLOCK; i++) {
            double x = near_block[i];
            double y = hp_b0 * x + hp_b1 * f->x1 + hp_b2 * f->x2 - hp_a1 * f->y1 - hp_a2 * f->y2;
            f->x2 = f->x1, f->x1 = x, f->y2 = f->y1, f->y1 = y;
            near_block[i] = (int16_t)(y > 32767 ? 32767 : y < -32768 ? -32768 : lrint(y));
        }
    }
    if (state->echo != NULL) {
        speex.echo_cancellation(state->echo, near_block, far_block, state->out);
        for (int i = 0; i < CEC_BLOCK; i++) near_block[i] = state->out[i];
    }
    if (state->preprocess != NULL) speex.preprocess_run(state->preprocess, near_block);
    return 0;
}

static void stats(void *opaque, cec_stats *stats) {
    (void)opaque;
    (void)stats;
}

const cec_backend cec_speex_backend = {load, error, is_loaded, create, process, stats, destroy};
