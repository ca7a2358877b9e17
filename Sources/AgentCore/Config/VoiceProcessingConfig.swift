import AudioPipe

/// A call's voice processing as configured (`[audio] echo_cancel`, `noise_suppression`, `auto_gain`,
/// `mic_gain_db`, `speaker_gain_db`, `echo_engine`), resolved per call against its source and sink
/// (`settings(source:sink:)`): `auto` turns echo cancellation and noise suppression on when the call
/// captures from a sound device and plays to one (a loudspeaker and a microphone that can hear each
/// other), off for files, pipes, commands, tones and silence, which have no room to cancel.
public struct VoiceProcessingConfig: Sendable, Equatable {
    /// `auto`, `on` or `off`.
    public enum Switch: String, Sendable, Equatable {
        case auto, on, off
    }

    public var echoCancel: Switch = .auto
    public var noiseSuppression: Switch = .auto
    public var autoGain = false
    public var micGainDb = 0.0
    public var speakerGainDb = 0.0
    public var engine: VoiceProcessingSettings.Engine = .webrtc

    public init() {}

    /// Gains allowed in the config, dB.
    public static let gainRange: ClosedRange<Double> = -30...30

    /// The settings for a call with this source and sink; nil when nothing would change the audio.
    public func settings(source: AudioSourceSpec, sink: AudioSinkSpec) -> VoiceProcessingSettings? {
        let soundDevices = source.isSoundDevice && sink.isSoundDevice
        var settings = VoiceProcessingSettings()
        settings.engine = engine
        settings.echoCancel = echoCancel == .on || (echoCancel == .auto && soundDevices)
        settings.noiseSuppression = noiseSuppression == .on || (noiseSuppression == .auto && source.isSoundDevice)
        settings.autoGain = autoGain
        // The high-pass goes with processing a microphone: it removes hum and handling noise.
        settings.highPass = settings.echoCancel || settings.noiseSuppression
        settings.micGainDb = micGainDb
        settings.speakerGainDb = speakerGainDb
        return settings.isNeutral ? nil : settings
    }
}

extension AudioSourceSpec {
    /// A sound card (or a sound server's ALSA plugin) rather than a file, pipe, command or generator.
    var isSoundDevice: Bool {
        if case .alsa = self { return true }
        return false
    }
}

extension AudioSinkSpec {
    /// A sound card (or a sound server's ALSA plugin).
    var isSoundDevice: Bool {
        if case .alsa = self { return true }
        return false
    }
}
