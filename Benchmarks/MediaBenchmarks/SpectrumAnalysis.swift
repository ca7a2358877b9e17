import AudioPipe
import FoundationEssentials
import Glibc

/// Small spectral tools for checking audio: a radix-2 FFT peak search and a Goertzel filter.
public enum SpectrumAnalysis {
    /// The strongest frequency in `samples`, in Hz, or nil for silence or fewer than 256 samples.
    ///
    /// Uses the newest power-of-two block of at most 32 768 samples (0.68 s at 48 kHz), removes
    /// the DC offset, applies a Hann window, finds the largest FFT bin above DC and refines it by
    /// parabolic interpolation of the log magnitudes (accuracy well under one bin for a tone).
    public static func dominantFrequency(_ samples: UnsafeBufferPointer<Int16>, sampleRate: Int) -> Double? {
        guard samples.count >= 256 else { return nil }
        var size = 256
        while size * 2 <= min(samples.count, 32_768) { size *= 2 }
        let block = UnsafeBufferPointer(rebasing: samples[(samples.count - size)...])
        let mean = block.reduce(0.0) { $0 + Double($1) } / Double(size)
        var real = [Double](repeating: 0, count: size)
        var imaginary = [Double](repeating: 0, count: size)
        for index in 0..<size {
            let window = 0.5 - 0.5 * cos(2 * Double.pi * Double(index) / Double(size))
            real[index] = (Double(block[index]) - mean) * window
        }
        fft(real: &real, imaginary: &imaginary)
        let magnitudes = (0...(size / 2)).map { (real[$0] * real[$0] + imaginary[$0] * imaginary[$0]).squareRoot() }
        guard let peak = (1..<(size / 2)).max(by: { magnitudes[$0] < magnitudes[$1] }), magnitudes[peak] > 1e-6 else {
            return nil
        }
        let (left, centre, right) = (log(magnitudes[peak - 1] + 1e-12), log(magnitudes[peak] + 1e-12),
                                     log(magnitudes[peak + 1] + 1e-12))
        let denominator = left - 2 * centre + right
        let offset = denominator == 0 ? 0 : 0.5 * (left - right) / denominator
        return (Double(peak) + offset) * Double(sampleRate) / Double(size)
    }

    /// The strongest frequency in an array of samples (see the buffer overload).
    public static func dominantFrequency(_ samples: [Int16], sampleRate: Int) -> Double? {
        samples.withUnsafeBufferPointer { dominantFrequency($0, sampleRate: sampleRate) }
    }

    /// The power of one frequency component (Goertzel), normalised so a full-scale sine at exactly
    /// that frequency gives about 0.25 (amplitude²/4) whatever the length.
    public static func goertzelPower(_ samples: UnsafeBufferPointer<Int16>, frequency: Double, sampleRate: Int) -> Double {
        guard !samples.isEmpty else { return 0 }
        let coefficient = 2 * cos(2 * Double.pi * frequency / Double(sampleRate))
        var previous = 0.0
        var beforePrevious = 0.0
        for sample in samples {
            let current = Double(sample) / 32_768 + coefficient * previous - beforePrevious
            beforePrevious = previous
            previous = current
        }
        let power = previous * previous + beforePrevious * beforePrevious - coefficient * previous * beforePrevious
        let count = Double(samples.count)
        return power / (count * count)
    }

    /// In-place iterative radix-2 complex FFT; the length must be a power of two.
    static func fft(real: inout [Double], imaginary: inout [Double]) {
        let size = real.count
        var swapIndex = 0
        for index in 1..<size {                                   // bit-reversal permutation
            var bit = size >> 1
            while swapIndex & bit != 0 { swapIndex ^= bit; bit >>= 1 }
            swapIndex |= bit
            if index < swapIndex {
                real.swapAt(index, swapIndex)
                imaginary.swapAt(index, swapIndex)
            }
        }
        real.withUnsafeMutableBufferPointer { re in
            imaginary.withUnsafeMutableBufferPointer { im in
                var length = 2
                while length <= size {
                    let angle = -2 * Double.pi / Double(length)
                    let (stepRe, stepIm) = (cos(angle), sin(angle))
                    var start = 0
                    while start < size {
                        var (twiddleRe, twiddleIm) = (1.0, 0.0)
                        for offset in 0..<(length / 2) {
                            let even = start + offset
                            let odd = even + length / 2
                            let productRe = re[odd] * twiddleRe - im[odd] * twiddleIm
                            let productIm = re[odd] * twiddleIm + im[odd] * twiddleRe
                            re[odd] = re[even] - productRe
                            im[odd] = im[even] - productIm
                            re[even] += productRe
                            im[even] += productIm
                            (twiddleRe, twiddleIm) = (twiddleRe * stepRe - twiddleIm * stepIm,
                                                      twiddleRe * stepIm + twiddleIm * stepRe)
                        }
                        start += length
                    }
                    length <<= 1
                }
            }
        }
    }
}
