/// What a call's voice processing does (`[audio] echo_cancel`, `noise_suppression`, `auto_gain`,
/// `mic_gain_db`, `speaker_gain_db`, `echo_engine`): the settings `VoiceProcessingStage` is made with.
public struct VoiceProcessingSettings: Sendable, Equatable {
    /// The engine that cancels echo and suppresses noise.
    public enum Engine: String, Sendable, CaseIterable {
        /// webrtc-audio-processing 0.3 (the AEC with delay-agnostic mode, NS, AGC, high-pass).
        case webrtc
        /// speexdsp 1.2.1 (MDF echo canceller and preprocessor).
        case speex
    }

    public var engine: Engine = .webrtc
    public var echoCancel = true
    public var noiseSuppression = true
    public var autoGain = false
    public var highPass = true
    /// Fixed gain on the microphone before processing, dB (0: none).
    public var micGainDb = 0.0
    /// Fixed gain on what is played, dB (0: none); the canceller's reference is the frame after it.
    public var speakerGainDb = 0.0
    /// speex only: the echo tail the filter covers after the reported delay is taken off, ms.
    public var speexTailMs = 200

    public init() {}

    /// True when the stage would change nothing (no engine needed).
    public var isNeutral: Bool {
        !echoCancel && !noiseSuppression && !autoGain && !highPass && micGainDb == 0 && speakerGainDb == 0
    }

    /// True when an engine (a library) is needed.
    var needsEngine: Bool { echoCancel || noiseSuppression || autoGain || highPass }
}
