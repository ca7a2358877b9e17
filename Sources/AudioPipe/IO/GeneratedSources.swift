import FoundationEssentials
import Glibc
import Synchronization

/// An endless sine tone, phase-continuous across reads.
///
/// Table-driven: for a whole-number frequency the tone repeats exactly every
/// `sampleRate / gcd(sampleRate, frequency)` samples (1200 for 440 Hz), so that one period is
/// computed once at creation and reads only copy from it (no `sin` per sample, which cost about
/// 3 % of a call's CPU). Other frequencies are computed per sample. Reads may come from any
/// thread (the media clock); the position is kept under a `Mutex`.
public final class ToneSource: AudioSource {
    /// Tone frequency in Hz.
    public let frequency: Double
    /// Peak amplitude as a fraction of full scale, 0…1.
    public let amplitude: Double
    /// The samples of one exact period, or empty when the frequency is not a whole number.
    private let table: [Int16]
    private let state = Mutex<(position: Int, phase: Double, closed: Bool)>((0, 0, false))

    /// A tone of `frequency` Hz at `amplitude` × full scale (clamped to 0…1; default 0.5 ≈ −9 dBFS RMS).
    public init(frequency: Double, amplitude: Double = 0.5) {
        self.frequency = frequency
        self.amplitude = min(1, max(0, amplitude))
        if let period = Self.periodLength(frequency) {
            table = (0..<period).map { Self.sample(at: $0, frequency: frequency, amplitude: min(1, max(0, amplitude))) }
        } else {
            table = []
        }
    }

    public func read(into buffer: UnsafeMutableBufferPointer<Int16>) -> Int {
        state.withLock { state in
            guard !state.closed else { return 0 }
            if table.isEmpty {
                let step = 2 * Double.pi * frequency / Double(AudioPipe.sampleRate)
                for index in buffer.indices {
                    buffer[index] = Int16((sin(state.phase) * amplitude * 32_767).rounded())
                    state.phase += step
                    if state.phase >= 2 * Double.pi { state.phase -= 2 * Double.pi }
                }
                return buffer.count
            }
            var written = 0
            table.withUnsafeBufferPointer { period in
                while written < buffer.count {
                    let run = min(buffer.count - written, period.count - state.position)
                    (buffer.baseAddress! + written).update(from: period.baseAddress! + state.position, count: run)
                    written += run
                    state.position = (state.position + run) % period.count
                }
            }
            return buffer.count
        }
    }

    public func close() { state.withLock { $0.closed = true } }

    /// Sample `index` of the tone: round(sin(2π·f·index / rate) × amplitude × 32767).
    static func sample(at index: Int, frequency: Double, amplitude: Double) -> Int16 {
        let phase = 2 * Double.pi * frequency * Double(index) / Double(AudioPipe.sampleRate)
        return Int16((sin(phase) * amplitude * 32_767).rounded())
    }

    /// The exact period in samples of a whole-number frequency, or nil.
    static func periodLength(_ frequency: Double) -> Int? {
        guard frequency > 0, frequency < Double(AudioPipe.sampleRate), frequency == frequency.rounded() else { return nil }
        var a = AudioPipe.sampleRate
        var b = Int(frequency)
        while b != 0 { (a, b) = (b, a % b) }
        return AudioPipe.sampleRate / a
    }
}

/// Endless digital silence.
public final class SilenceSource: AudioSource {
    private let closed = Atomic<Bool>(false)

    /// Creates the source.
    public init() {}

    public func read(into buffer: UnsafeMutableBufferPointer<Int16>) -> Int {
        guard !closed.load(ordering: .acquiring) else { return 0 }
        buffer.update(repeating: 0)
        return buffer.count
    }

    public func close() { closed.store(true, ordering: .releasing) }
}

/// A sink that discards audio and counts the samples (any thread: an atomic counter).
public final class NullSink: AudioSink {
    private let count = Atomic<Int>(0)

    /// Creates the sink.
    public init() {}

    /// Samples written so far.
    public var samplesWritten: Int { count.load(ordering: .relaxed) }

    public func write(_ samples: UnsafeBufferPointer<Int16>) { count.add(samples.count, ordering: .relaxed) }

    public func close() {}
}
