/// The internal audio format of every media path: 48 kHz mono, 16-bit, 20 ms frames.
/// (`AudioFormat.sampleRate` and `AudioFormat.samplesPerFrame` give the same numbers.)
public enum AudioFormat {
    /// The internal sample rate: 48 kHz.
    public static let sampleRate = 48_000
    /// Samples in one 20 ms frame at `sampleRate`.
    public static let samplesPerFrame = 960
}
