#ifndef CECHOCANCEL_WEBRTC_LOADER_H
#define CECHOCANCEL_WEBRTC_LOADER_H

/* See WebRTCLoader.c. Private to the target. */

#ifdef __cplusplus
extern "C" {
#endif

/* webrtc::AudioProcessing::Create(const webrtc::Config&), once cec_webrtc_load() returned 1. */
extern void *cec_webrtc_create_apm;
/* The library's webrtc::Config::identifier<T>()::id_placeholder of ExtendedFilter, DelayAgnostic and
 * ExperimentalAgc: the keys its Config::Get looks options up by. */
extern void *cec_webrtc_extended_filter_id;
extern void *cec_webrtc_delay_agnostic_id;
extern void *cec_webrtc_experimental_agc_id;
int cec_webrtc_load(void);
int cec_webrtc_is_loaded(void);
const char *cec_webrtc_error(void);

#ifdef __cplusplus
}
#endif

#endif
