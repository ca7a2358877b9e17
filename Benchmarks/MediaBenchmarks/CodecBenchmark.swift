import AudioPipe
import Glibc

/// Times the Opus encoder and decoder on a voice-like test signal (used by `make bench`).
public enum CodecBenchmark {
    /// Encodes then decodes `frames` 20 ms frames with the default `OpusEncoderConfiguration`;
    /// returns the mean microseconds per frame for each direction.
    public static func run(frames: Int) -> (encodeMicros: Double, decodeMicros: Double) {
        guard frames > 0, let encoder = try? OpusEncoder(), let decoder = try? OpusDecoder() else { return (0, 0) }
        let signal = benchmarkSignal(samples: AudioFormat.samplesPerFrame * 50)
        var packets: [[UInt8]] = []
        packets.reserveCapacity(frames)
        let clock = ContinuousClock()
        let encodeTime = clock.measure {
            signal.withUnsafeBufferPointer { all in
                for index in 0..<frames {
                    let start = (index % 50) * AudioFormat.samplesPerFrame
                    let frame = UnsafeBufferPointer(rebasing: all[start..<(start + AudioFormat.samplesPerFrame)])
                    packets.append((try? encoder.encode(frame)) ?? [])
                }
            }
        }
        let decodeTime = clock.measure {
            for packet in packets { _ = try? decoder.decode(packet) }
        }
        return (microseconds(encodeTime) / Double(frames), microseconds(decodeTime) / Double(frames))
    }

    /// A 1 s loop of a 140 Hz harmonic-rich tone with a 4 Hz syllable-like envelope.
    static func benchmarkSignal(samples: Int) -> [Int16] {
        (0..<samples).map { index in
            let time = Double(index) / Double(AudioFormat.sampleRate)
            let envelope = 0.55 + 0.45 * sin(2 * Double.pi * 4 * time)
            var value = 0.0
            for harmonic in 1...6 { value += sin(2 * Double.pi * 140 * Double(harmonic) * time) / Double(harmonic) }
            return Int16(max(-32_767, min(32_767, value * envelope * 7_000)))
        }
    }

    private static func microseconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) * 1e6 + Double(attoseconds) / 1e12
    }
}
