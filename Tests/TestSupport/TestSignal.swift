import Foundation

/// Test signals and comparison helpers shared by the codec and audio I/O tests (AudioCodecTests, AudioPipeTests).
public enum TestSignal {
    /// A sine of `frequency` Hz, `amplitude` × full scale, `count` frames, the same in every channel
    /// unless `channelGains` says otherwise (one gain per channel, interleaved output).
    public static func sine(frequency: Double, amplitude: Double = 0.5, count: Int, sampleRate: Int = 48_000,
                     channelGains: [Double] = [1]) -> [Int16] {
        var samples: [Int16] = []
        samples.reserveCapacity(count * channelGains.count)
        for index in 0..<count {
            let value = sin(2 * Double.pi * frequency * Double(index) / Double(sampleRate)) * amplitude * 32_767
            for gain in channelGains { samples.append(Int16((value * gain).rounded())) }
        }
        return samples
    }

    /// A voiced, speech-like signal whose pitch and loudness change every 100 ms.
    public static func speechLike(count: Int) -> [Int16] {
        let pitches = [140.0, 190, 120, 230, 160, 210, 130, 250, 175, 150]
        var phase = 0.0
        return (0..<count).map { index in
            let segment = (index / 4_800) % pitches.count
            phase += 2 * Double.pi * pitches[segment] / 48_000
            var value = 0.0
            for harmonic in 1...8 { value += sin(phase * Double(harmonic)) / Double(harmonic) }
            let loudness = segment.isMultiple(of: 2) ? 6_000.0 : 3_000.0
            return Int16(max(-32_767, min(32_767, value * loudness)))
        }
    }

    /// SNR in dB of `output` against `reference`, over `length` samples from `start`, with `output`
    /// delayed by `lag` samples.
    public static func snr(reference: [Int16], output: [Int16], lag: Int, start: Int, length: Int) -> Double {
        var signal = 0.0
        var noise = 0.0
        for index in start..<(start + length) {
            let wanted = Double(reference[index])
            let error = Double(output[index + lag]) - wanted
            signal += wanted * wanted
            noise += error * error
        }
        return 10 * log10(signal / max(noise, 1e-9))
    }

    /// The best SNR over output delays 0…`maxLag` (the lag is found by cross-correlation over a
    /// short window, then SNR is measured over the whole span from `start`).
    public static func bestAlignedSNR(reference: [Int16], output: [Int16], maxLag: Int, start: Int) -> (snr: Double, lag: Int) {
        let length = min(reference.count, output.count - maxLag) - start
        precondition(length > 0, "output too short to align")
        let window = min(length, 4_800)
        var bestLag = 0
        var bestCorrelation = -Double.infinity
        for lag in 0...maxLag {
            var correlation = 0.0
            for index in start..<(start + window) { correlation += Double(reference[index]) * Double(output[index + lag]) }
            if correlation > bestCorrelation { (bestCorrelation, bestLag) = (correlation, lag) }
        }
        let candidates = max(0, bestLag - 2)...min(maxLag, bestLag + 2)
        return candidates.map { (snr(reference: reference, output: output, lag: $0, start: start, length: length), $0) }
            .max { $0.0 < $1.0 }!
    }

    /// Energy of the difference between two equally long buffers.
    public static func errorEnergy(_ a: [Int16], _ b: [Int16]) -> Double {
        zip(a, b).reduce(0.0) { sum, pair in
            let difference = Double(pair.0) - Double(pair.1)
            return sum + difference * difference
        }
    }

    /// Splits a 48 kHz buffer into 20 ms frames (the last partial frame is dropped).
    public static func frames(_ samples: [Int16]) -> [[Int16]] {
        stride(from: 0, to: samples.count - 959, by: 960).map { Array(samples[$0..<($0 + 960)]) }
    }
}
