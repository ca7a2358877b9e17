#ifndef CECHOCANCEL_H
#define CECHOCANCEL_H

/*
 * Echo cancellation, noise suppression, automatic gain and a high-pass filter for one call, by
 * one of two engines Debian 12 ships, each opened on first use (dlopen through CLibraryLoader,
 * as alsa-lib and libsoxr are): an agent that never makes a call with a sound card never maps them.
 *
 * - CEC_ENGINE_WEBRTC: webrtc-audio-processing 0.3 (libwebrtc_audio_processing.so.1), the
 *   AudioProcessing module behind PulseAudio's and PipeWire's echo-cancel: the AEC with
 *   delay-agnostic mode and extended filter, its noise suppressor, adaptive digital AGC and
 *   high-pass. C++: WebRTCEngine.cpp reaches it through the one factory it resolves
 *   (AudioProcessing::Create) and the virtual methods of the object it returns.
 * - CEC_ENGINE_SPEEX: speexdsp 1.2.1 (libspeexdsp.so.1): the MDF echo canceller and the
 *   preprocessor (residual echo suppression, denoise, AGC); the high-pass is ours (a 2nd-order
 *   Butterworth at 80 Hz, before the canceller).
 *
 * Audio: 48 kHz mono int16 in blocks of CEC_BLOCK (10 ms). The caller hands every played block
 * to cec_far and every captured block to cec_near with the delay, in samples, between a far block
 * being handed over and its echo reaching cec_near as far as the devices report it (0 when
 * unknown). The engine keeps the far blocks in a ring and gives the canceller the block that
 * many samples back (less a small safety margin, so the echo never comes before its reference);
 * the engines' own filters and delay estimators cover the rest (the room, unreported buffering).
 *
 * Thread: one engine is used by one thread at a time. cec_library_load is thread-safe.
 */

#include <stddef.h>
#include <stdint.h>

#define CEC_BLOCK 480
#define CEC_RATE 48000

enum { CEC_ENGINE_WEBRTC = 1, CEC_ENGINE_SPEEX = 2 };

typedef struct {
    int engine;             /* CEC_ENGINE_* */
    int echo_cancel;        /* 0/1 */
    int noise_suppression;  /* 0/1 */
    int auto_gain;          /* 0/1 */
    int high_pass;          /* 0/1 */
    int tail_ms;            /* speex: the filter length (echo tail covered); webrtc: ignored */
} cec_settings;

typedef struct {
    double erle_db;        /* the engine's own ERLE estimate, NaN when it has none */
    int engine_delay_ms;   /* the delay the engine estimated on top of the reported one; -1 when none */
    int echo_present;      /* the engine judged the last block to hold echo (webrtc), else -1 */
} cec_stats;

typedef struct cec_engine cec_engine;

/* Opens the engine's library once; 1 when usable, 0 when not (the reason in cec_library_error). */
int cec_library_load(int engine);
/* 1 when the engine's library is loaded; never starts a load. */
int cec_library_is_loaded(int engine);
const char *cec_library_error(int engine);

/* A new engine for one call, or NULL (library missing, bad settings, out of memory). */
cec_engine *cec_create(const cec_settings *settings);
/* One played 10 ms block (CEC_BLOCK samples). */
void cec_far(cec_engine *engine, const int16_t *block);
/* One captured 10 ms block, processed in place; `reported_delay` in samples (see above). 0 or a
 * negative engine error (the block is then left as it came). */
int cec_near(cec_engine *engine, int16_t *block, int reported_delay);
void cec_stats_get(cec_engine *engine, cec_stats *stats);
void cec_destroy(cec_engine *engine);

#endif
