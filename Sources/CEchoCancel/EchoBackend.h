#ifndef CECHOCANCEL_BACKEND_H
#define CECHOCANCEL_BACKEND_H

/* The two engines behind include/CEchoCancel.h, private to the target. Each takes a captured
 * block and the far block already aligned with it (EchoEngine.c does the alignment). */

#include "include/CEchoCancel.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    int (*load)(void);
    const char *(*error)(void);
    int (*is_loaded)(void);
    void *(*create)(const cec_settings *settings);
    int (*process)(void *state, int16_t *near_block, const int16_t *far_block);
    void (*stats)(void *state, cec_stats *stats);
    void (*destroy)(void *state);
} cec_backend;

extern const cec_backend cec_webrtc_backend;
extern const cec_backend cec_speex_backend;

#ifdef __cplusplus
}
#endif

#endif
