import AudioPipe
import Foundation

/// DTMF key presses as tones (48 kHz mono 16-bit), the way a phone or a gateway plays them, with
/// timing and levels varied inside what ITU-T Q.24 says a receiver must accept.
public enum DTMFKeySignal {
    /// One key placed in a signal: where its tone starts and ends (samples).
    public struct Placed: Sendable, Equatable {
        public let key: Character
        public let start: Int
        public let end: Int
    }

    /// The row and column frequencies of a key.
    public static func frequencies(of key: Character) -> (row: Double, column: Double)? {
        let layout: [Character] = ["1", "2", "3", "A", "4", "5", "6", "B", "7", "8", "9", "C", "*", "0", "#", "D"]
        guard let index = layout.firstIndex(of: key) else { return nil }
        return (DTMFToneDetector.rowFrequencies[index / 4], DTMFToneDetector.columnFrequencies[index % 4])
    }

    /// The 16-bit peak amplitude of a sine at `dBm0` (0 dBm0 = 3.14 dB under a full-scale sine, G.711).
    public static func amplitude(dBm0: Double) -> Double { 32_767 * pow(10, (dBm0 - 3.14) / 20) }

    /// Adds `keys` as tones into `signal` from sample `at`: each tone `toneMs` long (random in
    /// the range), then `gapMs` of nothing added; the row tone at `levelDBm0`, the column tone
    /// `twistDB` louder; frequencies off by up to `deviation` (fraction). Returns where each key is.
    public static func add<G: RandomNumberGenerator>(_ keys: String, into signal: inout [Int16], at: Int,
                                                     toneMs: ClosedRange<Double> = 60...120, gapMs: ClosedRange<Double> = 50...100,
                                                     levelDBm0: ClosedRange<Double> = -16 ... -6, twistDB: ClosedRange<Double> = -2...4,
                                                     deviation: Double = 0.015, using random: inout G) -> [Placed] {
        var position = at
        var placed: [Placed] = []
        for key in keys {
            guard let (row, column) = frequencies(of: key) else { continue }
            let length = Int(Double.random(in: toneMs, using: &random) * 48)
            let level = Double.random(in: levelDBm0, using: &random)
            let twist = Double.random(in: twistDB, using: &random)
            let low = row * (1 + Double.random(in: -deviation...deviation, using: &random))
            let high = column * (1 + Double.random(in: -deviation...deviation, using: &random))
            let lowAmplitude = amplitude(dBm0: level), highAmplitude = amplitude(dBm0: level + twist)
            let phase = Double.random(in: 0..<(2 * Double.pi), using: &random)
            if position + length > signal.count { signal += [Int16](repeating: 0, count: position + length - signal.count) }
            for index in 0..<length {
                let t = Double(index) / 48_000
                let value = lowAmplitude * sin(2 * Double.pi * low * t + phase) + highAmplitude * sin(2 * Double.pi * high * t)
                let mixed = Double(signal[position + index]) + value
                signal[position + index] = Int16(max(-32_767, min(32_767, mixed)))
            }
            placed.append(Placed(key: key, start: position, end: position + length))
            position += length + Int(Double.random(in: gapMs, using: &random) * 48)
        }
        return placed
    }

    /// The RMS of the non-silent part of `samples` (samples above -60 dBFS).
    public static func activeRMS(_ samples: ArraySlice<Int16>) -> Double {
        var sum = 0.0, count = 0
        for sample in samples where abs(Int(sample)) > 32 {
            sum += Double(sample) * Double(sample)
            count += 1
        }
        return count == 0 ? 0 : (sum / Double(count)).squareRoot()
    }

    /// `samples` scaled by `gain`, clipped.
    public static func scaled(_ samples: ArraySlice<Int16>, gain: Double) -> [Int16] {
        samples.map { Int16(max(-32_767, min(32_767, Double($0) * gain))) }
    }
}
