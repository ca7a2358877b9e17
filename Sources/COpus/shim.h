#ifndef COPUS_SHIM_H
#define COPUS_SHIM_H

#include <opus.h>

/* opus_encoder_ctl / opus_decoder_ctl are variadic and their request macros expand to
 * "REQUEST, value"; Swift can call neither, so each request we use gets a typed wrapper. */

static inline int wcs_opus_encoder_set_bitrate(OpusEncoder *e, opus_int32 v) { return opus_encoder_ctl(e, OPUS_SET_BITRATE(v)); }
static inline int wcs_opus_encoder_set_complexity(OpusEncoder *e, opus_int32 v) { return opus_encoder_ctl(e, OPUS_SET_COMPLEXITY(v)); }
static inline int wcs_opus_encoder_set_inband_fec(OpusEncoder *e, opus_int32 v) { return opus_encoder_ctl(e, OPUS_SET_INBAND_FEC(v)); }
static inline int wcs_opus_encoder_set_packet_loss_perc(OpusEncoder *e, opus_int32 v) { return opus_encoder_ctl(e, OPUS_SET_PACKET_LOSS_PERC(v)); }
static inline int wcs_opus_encoder_set_dtx(OpusEncoder *e, opus_int32 v) { return opus_encoder_ctl(e, OPUS_SET_DTX(v)); }
static inline int wcs_opus_encoder_set_signal(OpusEncoder *e, opus_int32 v) { return opus_encoder_ctl(e, OPUS_SET_SIGNAL(v)); }
static inline int wcs_opus_encoder_set_vbr(OpusEncoder *e, opus_int32 v) { return opus_encoder_ctl(e, OPUS_SET_VBR(v)); }
static inline int wcs_opus_encoder_get_lookahead(OpusEncoder *e, opus_int32 *out) { return opus_encoder_ctl(e, OPUS_GET_LOOKAHEAD(out)); }
static inline int wcs_opus_encoder_get_in_dtx(OpusEncoder *e, opus_int32 *out) { return opus_encoder_ctl(e, OPUS_GET_IN_DTX(out)); }
static inline int wcs_opus_encoder_reset_state(OpusEncoder *e) { return opus_encoder_ctl(e, OPUS_RESET_STATE); }

static inline int wcs_opus_decoder_get_last_packet_duration(OpusDecoder *d, opus_int32 *out) { return opus_decoder_ctl(d, OPUS_GET_LAST_PACKET_DURATION(out)); }
static inline int wcs_opus_decoder_reset_state(OpusDecoder *d) { return opus_decoder_ctl(d, OPUS_RESET_STATE); }

/* Signal hints and applications are plain integer macros; re-exported as constants for clarity. */
static const int wcs_opus_signal_auto = OPUS_AUTO;
static const int wcs_opus_signal_voice = OPUS_SIGNAL_VOICE;
static const int wcs_opus_signal_music = OPUS_SIGNAL_MUSIC;

#endif
