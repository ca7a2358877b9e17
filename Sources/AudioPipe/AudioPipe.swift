/// AudioPipe: the media plane (SDP, ICE, DTLS-SRTP, RTP/RTCP, jitter buffer, Opus, DTMF, audio I/O).
/// Layers live in one folder each; see the module README.
public enum AudioPipe {
    /// The internal sample rate of every audio path: 48 kHz mono, 16-bit.
    public static let sampleRate = 48_000
    /// Samples in one 20 ms frame at `sampleRate`.
    public static let samplesPerFrame = 960
}
