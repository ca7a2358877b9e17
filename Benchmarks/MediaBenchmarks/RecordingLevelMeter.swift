import AudioPipe
import AudioCodec
import DecimalText
import FoundationEssentials
import Glibc
import Synchronization

/// Level and pitch of a stretch of 48 kHz mono audio.
public struct AudioLevels: Sendable, Equatable, CustomStringConvertible {
    /// The floor reported for digital silence, in dBFS.
    public static let silenceFloor = -120.0

    /// Samples measured.
    public var sampleCount: Int
    /// RMS level in dBFS, relative to a full-scale square wave (a full-scale sine reads −3 dBFS);
    /// `silenceFloor` for silence.
    public var rmsDBFS: Double
    /// Peak level in dBFS (|sample| / 32768); `silenceFloor` for silence.
    public var peakDBFS: Double
    /// The dominant frequency in Hz (see `SpectrumAnalysis.dominantFrequency`), nil when silent or too short.
    public var dominantFrequency: Double?

    /// Measures a buffer.
    public static func measure(_ samples: UnsafeBufferPointer<Int16>, sampleRate: Int = AudioPipe.sampleRate) -> AudioLevels {
        var sumOfSquares = 0.0
        var peak = 0
        for sample in samples {
            let value = Int(sample)
            sumOfSquares += Double(value * value)
            peak = max(peak, abs(value))
        }
        return AudioLevels(sampleCount: samples.count, sumOfSquares: sumOfSquares, peak: peak,
                           dominantFrequency: SpectrumAnalysis.dominantFrequency(samples, sampleRate: sampleRate))
    }

    /// Measures an array.
    public static func measure(_ samples: [Int16], sampleRate: Int = AudioPipe.sampleRate) -> AudioLevels {
        samples.withUnsafeBufferPointer { measure($0, sampleRate: sampleRate) }
    }

    init(sampleCount: Int, sumOfSquares: Double, peak: Int, dominantFrequency: Double?) {
        self.sampleCount = sampleCount
        let rms = sampleCount == 0 ? 0 : (sumOfSquares / Double(sampleCount)).squareRoot()
        rmsDBFS = Self.decibels(rms)
        peakDBFS = Self.decibels(Double(peak))
        self.dominantFrequency = dominantFrequency
    }

    private static func decibels(_ level: Double) -> Double {
        level <= 0 ? silenceFloor : max(silenceFloor, 20 * log10(level / 32_768))
    }

    public var description: String {
        let pitch = dominantFrequency.map { "\(DecimalText.fixed($0, decimals: 1)) Hz" } ?? "none"
        return "rms \(DecimalText.fixed(rmsDBFS, decimals: 1)) dBFS, peak \(DecimalText.fixed(peakDBFS, decimals: 1)) dBFS, "
            + "dominant \(pitch), \(sampleCount) samples"
    }
}

/// A sink that measures what is written to it: RMS and peak over everything since the last
/// `reset()`, and the dominant frequency over the most recent `analysisWindow` samples.
/// Use it alone or alongside a real sink (for tests and the demo's call summary).
///
/// Runs on: any thread (the audio tick writes, a test or the summary reads); the running sums
/// are in a `Mutex`, so it is checked Sendable.
public final class RecordingLevelMeter: AudioSink, Sendable {
    /// What has been measured since the last `reset()`.
    private struct Measured: Sendable {
        var recent: SampleRing
        var sumOfSquares = 0.0
        var peak = 0
        var total = 0
    }

    private let measured: Mutex<Measured>

    /// Keeps the newest `analysisWindow` samples (default 1 s at 48 kHz) for pitch estimation.
    public init(analysisWindow: Int = AudioPipe.sampleRate) {
        measured = Mutex(Measured(recent: SampleRing(capacity: max(256, analysisWindow))))
    }

    public func write(_ samples: UnsafeBufferPointer<Int16>) {
        measured.withLock { state in
            for sample in samples {
                let value = Int(sample)
                state.sumOfSquares += Double(value * value)
                state.peak = max(state.peak, abs(value))
            }
            state.total += samples.count
            state.recent.append(samples)
        }
    }

    /// Nothing to release.
    public func close() {}

    /// The levels so far.
    public var levels: AudioLevels {
        let (window, sampleCount, sumOfSquares, peak) = measured.withLock { state in
            var window = [Int16](repeating: 0, count: state.recent.count)
            var copy = state.recent
            window.withUnsafeMutableBufferPointer { _ = copy.read(into: $0) }
            return (window, state.total, state.sumOfSquares, state.peak)
        }
        return AudioLevels(sampleCount: sampleCount, sumOfSquares: sumOfSquares, peak: peak,
                           dominantFrequency: SpectrumAnalysis.dominantFrequency(window, sampleRate: AudioPipe.sampleRate))
    }

    /// Starts measuring afresh.
    public func reset() {
        measured.withLock { state in
            state.recent.removeAll()
            state.sumOfSquares = 0
            state.peak = 0
            state.total = 0
        }
    }
}
