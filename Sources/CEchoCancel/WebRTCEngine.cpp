// CEC_ENGINE_WEBRTC: webrtc-audio-processing 0.3's AudioProcessing module, libwebrtc_audio_processing.so.1
// opened on first use (WebRTCLoader.c). Only the factory AudioProcessing::Create(const Config&) is resolved by name;
// everything else is a virtual method of the object it returns, and the Config, AudioFrame and
// option types are defined in the headers (but for the option keys, below), so nothing else binds to
// the library.
#include <math.h>
#include <new>

#include <webrtc/modules/audio_processing/include/audio_processing.h>
#include <webrtc/modules/interface/module_common_types.h>

#include "EchoBackend.h"
#include "WebRTCLoader.h"

// webrtc::Config keys each option by the address of a static in Config::identifier<T>(), a template
// instantiated in each binary. Ours is built with hidden visibility and the library is opened
// RTLD_LOCAL, so our instantiations would be other addresses than the library's and every option we
// set would go unseen (measured: delay-agnostic mode off, ~1 dB ERLE). These specialisations make
// ours return the library's own (dlsym'd in WebRTCLoader.c); they must come before the first use.
namespace webrtc {
template <> void *Config::identifier<ExtendedFilter>() { return cec_webrtc_extended_filter_id; }
template <> void *Config::identifier<DelayAgnostic>() { return cec_webrtc_delay_agnostic_id; }
template <> void *Config::identifier<ExperimentalAgc>() { return cec_webrtc_experimental_agc_id; }
}  // namespace webrtc

namespace {

typedef webrtc::AudioProcessing *(*CreateFunction)(const webrtc::Config &);

struct State {
    webrtc::AudioProcessing *apm;
    webrtc::AudioFrame capture;
    webrtc::AudioFrame render;
    bool echo_cancel;
};

int load() { return cec_webrtc_load(); }
int is_loaded() { return cec_webrtc_is_loaded(); }
const char *error() { return cec_webrtc_error(); }

void prepare(webrtc::AudioFrame &frame) {
    frame.sample_rate_hz_ = CEC_RATE;
    frame.samples_per_channel_ = CEC_BLOCK;
    frame.num_channels_ = 1;
}

void destroy(void *opaque) {
    State *state = static_cast<State *>(opaque);
    delete state->apm;
    delete state;
}

void *create(const cec_settings *settings) {
    State *state = new (std::nothrow) State();
    if (state == nullptr) return nullptr;
    webrtc::Config config;
    config.Set<webrtc::ExtendedFilter>(new webrtc::ExtendedFilter(true));
    config.Set<webrtc::DelayAgnostic>(new webrtc::DelayAgnostic(true));
    config.Set<webrtc::ExperimentalAgc>(new webrtc::ExperimentalAgc(false));
    state->apm = reinterpret_cast<CreateFunction>(cec_webrtc_create_apm)(config);
    if (state->apm == nullptr) {
        delete state;
        return nullptr;
    }
    webrtc::AudioProcessing *apm = state->apm;
    state->echo_cancel = settings->echo_cancel != 0;
    apm->echo_cancellation()->Enable(state->echo_cancel);
    if (state->echo_cancel) {
        apm->echo_cancellation()->enable_drift_compensation(false);
        apm->echo_cancellation()->set_suppression_level(webrtc::EchoCancellation::kModerateSuppression);
        apm->echo_cancellation()->enable_metrics(true);
        apm->echo_cancellation()->enable_delay_logging(true);
    }
    apm->noise_suppression()->set_level(webrtc::NoiseSuppression::kHigh);
    apm->noise_suppression()->Enable(settings->noise_suppression != 0);
    apm->gain_control()->set_mode(webrtc::GainControl::kAdaptiveDigital);
    apm->gain_control()->set_target_level_dbfs(3);
    apm->gain_control()->set_compression_gain_db(9);
    apm->gain_control()->enable_limiter(true);
    apm->gain_control()->Enable(settings->auto_gain != 0);
    apm->high_pass_filter()->Enable(settings->high_pass != 0);
    prepare(state->capture);
    prepare(state->render);
    // The forward stream sets the rate the module runs at, and 0.3 refuses a reverse block at
    // another rate than it: one silent block sets 48 kHz before the first far block comes.
    for (int i = 0; i < CEC_BLOCK; i++) state->capture.data_[i] = 0;
    apm->set_stream_delay_ms(0);
    if (apm->ProcessStream(&state->capture) != 0) {
        destroy(state);
        return nullptr;
    }
    return state;
}

int process(void *opaque, int16_t *near_block, const int16_t *far_block) {
    State *state = static_cast<State *>(opaque);
    if (state->echo_cancel) {
        prepare(state->render);
        for (int i = 0; i < CEC_BLOCK; i++) state->render.data_[i] = far_block[i];
        // AnalyzeReverseStream: 0.3 refuses ProcessReverseStream at 48 kHz (it would also write the far end back).
        int status = state->apm->AnalyzeReverseStream(&state->render);
        if (status != 0) return status < 0 ? status : -status;
        // The reference is aligned already (EchoEngine.c): what is left is the room and the margin.
        state->apm->set_stream_delay_ms(0);
    }
    prepare(state->capture);
    for (int i = 0; i < CEC_BLOCK; i++) state->capture.data_[i] = near_block[i];
    int status = state->apm->ProcessStream(&state->capture);
    if (status != 0) return status < 0 ? status : -status;
    for (int i = 0; i < CEC_BLOCK; i++) near_block[i] = state->capture.data_[i];
    return 0;
}

void stats(void *opaque, cec_stats *stats) {
    State *state = static_cast<State *>(opaque);
    if (!state->echo_cancel) return;
    webrtc::EchoCancellation *aec = state->apm->echo_cancellation();
    webrtc::EchoCancellation::Metrics metrics;
    if (aec->GetMetrics(&metrics) == 0) stats->erle_db = metrics.echo_return_loss_enhancement.average;
    int median = 0, deviation = 0;
    float poor = 0;
    if (aec->GetDelayMetrics(&median, &deviation, &poor) == 0) stats->engine_delay_ms = median;
    stats->echo_present = aec->stream_has_echo() ? 1 : 0;
}

}  // namespace

extern "C" const cec_backend cec_webrtc_backend = {load, error, is_loaded, create, process, stats, destroy};
