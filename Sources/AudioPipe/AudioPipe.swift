@_exported import AudioCodec
@_exported import AudioJitter
@_exported import AudioRTP
@_exported import AudioSDP

/// AudioPipe: the media plane (ICE, DTLS-SRTP, DTMF, audio I/O, `CallMedia`), and the umbrella
/// over its layer targets AudioSDP, AudioRTP, AudioJitter and AudioCodec (re-exported, so
/// `import AudioPipe` gives all of them). Layers live in one folder or target each; see the README.
public enum AudioPipe {
    /// The internal sample rate of every audio path: 48 kHz mono, 16-bit.
    public static let sampleRate = AudioFormat.sampleRate
    /// Samples in one 20 ms frame at `sampleRate`.
    public static let samplesPerFrame = AudioFormat.samplesPerFrame
}
