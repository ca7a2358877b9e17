import Foundation

/// An endless sine tone, phase-continuous across reads.
public final class ToneSource: AudioSource, @unchecked Sendable {
    /// Tone frequency in Hz.
    public let frequency: Double
    /// Peak amplitude as a fraction of full scale, 0…1.
    public let amplitude: Double
    private let lock = NSLock()
    private var phase = 0.0
    private var closed = false

    /// A tone of `frequency` Hz at `amplitude` × full scale (clamped to 0…1; default 0.5 ≈ −9 dBFS RMS).
    public init(frequency: Double, amplitude: Double = 0.5) {
        self.frequency = frequency
        self.amplitude = min(1, max(0, amplitude))
    }

    public func read(into buffer: UnsafeMutableBufferPointer<Int16>) -> Int {
        lock.withLock {
            guard !closed else { return 0 }
            let step = 2 * Double.pi * frequency / Double(AudioPipe.sampleRate)
            let scale = amplitude * 32_767
            for index in buffer.indices {
                buffer[index] = Int16((sin(phase) * scale).rounded())
                phase += step
                if phase >= 2 * Double.pi { phase -= 2 * Double.pi }
            }
            return buffer.count
        }
    }

    public func close() { lock.withLock { closed = true } }
}

/// Endless digital silence.
public final class SilenceSource: AudioSource, @unchecked Sendable {
    private let lock = NSLock()
    private var closed = false

    /// Creates the source.
    public init() {}

    public func read(into buffer: UnsafeMutableBufferPointer<Int16>) -> Int {
        guard !(lock.withLock { closed }) else { return 0 }
        buffer.update(repeating: 0)
        return buffer.count
    }

    public func close() { lock.withLock { closed = true } }
}

/// A sink that discards audio and counts the samples.
public final class NullSink: AudioSink, @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    /// Creates the sink.
    public init() {}

    /// Samples written so far.
    public var samplesWritten: Int { lock.withLock { count } }

    public func write(_ samples: UnsafeBufferPointer<Int16>) { lock.withLock { count += samples.count } }

    public func close() {}
}
