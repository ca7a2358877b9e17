@testable import MediaBenchmarks
import TestSupport
@testable import AudioPipe
import Foundation
import Testing

@Suite struct AudioIOGeneratedTests {
    @Test func toneHasItsFrequencyAndLevel() throws {
        let tone = ToneSource(frequency: 440, amplitude: 0.5)
        let meter = RecordingLevelMeter()
        var frame = [Int16](repeating: 0, count: 960)
        for _ in 0..<50 {
            #expect(tone.read(into: &frame) == 960)
            try meter.write(frame)
        }
        let levels = meter.levels
        #expect(levels.sampleCount == 48_000)
        let pitch = try #require(levels.dominantFrequency)
        #expect(abs(pitch - 440) <= 0.5)
        #expect(abs(levels.rmsDBFS - 20 * log10(0.5 / 2.squareRoot())) < 0.05)
        #expect(abs(levels.peakDBFS - 20 * log10(0.5)) < 0.05)
        meter.reset()
        #expect(meter.levels.sampleCount == 0)
        tone.close()
        #expect(tone.read(into: &frame) == 0)
    }

    @Test(arguments: [97.0, 1_000, 3_333])
    func estimatorFindsOtherTones(frequency: Double) throws {
        let levels = AudioLevels.measure(TestSignal.sine(frequency: frequency, amplitude: 0.1, count: 9_600))
        let pitch = try #require(levels.dominantFrequency)
        #expect(abs(pitch - frequency) <= 2)
        let samples = TestSignal.sine(frequency: frequency, amplitude: 1, count: 48_000)
        let power = samples.withUnsafeBufferPointer { SpectrumAnalysis.goertzelPower($0, frequency: frequency, sampleRate: 48_000) }
        let offTone = samples.withUnsafeBufferPointer { SpectrumAnalysis.goertzelPower($0, frequency: frequency * 1.5, sampleRate: 48_000) }
        #expect(abs(power - 0.25) < 0.01 && offTone < 0.001)
    }

    @Test func silenceAndNullSink() throws {
        let silence = SilenceSource()
        var frame = [Int16](repeating: 9, count: 960)
        #expect(silence.read(into: &frame) == 960 && frame.allSatisfy { $0 == 0 })
        let levels = AudioLevels.measure(frame)
        #expect(levels.rmsDBFS == AudioLevels.silenceFloor && levels.peakDBFS == AudioLevels.silenceFloor)
        #expect(levels.dominantFrequency == nil)
        silence.close()
        #expect(silence.read(into: &frame) == 0)
        let sink = NullSink()
        try sink.write(frame)
        try sink.write(frame)
        #expect(sink.samplesWritten == 1_920)
    }

    @Test func ringKeepsOrderAndDropsOldest() {
        var ring = SampleRing(capacity: 1_000)
        var model: [Int16] = []
        var next: Int16 = 0
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let chunk = (0..<Int.random(in: 0..<1_300, using: &generator)).map { _ -> Int16 in next &+= 1; return next }
            let dropped = chunk.withUnsafeBufferPointer { ring.append($0) }
            model += chunk
            #expect(dropped == max(0, model.count - 1_000))
            if model.count > 1_000 { model.removeFirst(model.count - 1_000) }
            var out = [Int16](repeating: 0, count: Int.random(in: 0..<300, using: &generator))
            let got = out.withUnsafeMutableBufferPointer { ring.read(into: $0) }
            #expect(Array(out[0..<got]) == Array(model.prefix(got)) && got == min(out.count, model.count))
            model.removeFirst(got)
            #expect(ring.count == model.count)
        }
    }
}

/// The tone table: the same samples as the sine formula, continuous across reads of any size.
@Suite struct ToneTableTests {
    @Test(arguments: [440.0, 880.0, 997.0, 1000.0, 440.5])
    func tableMatchesTheFormulaAcrossOddReads(frequency: Double) {
        let tone = ToneSource(frequency: frequency, amplitude: 0.7)
        var produced: [Int16] = []
        for size in [7, 960, 333, 1_200, 5_000, 1] {
            var chunk = [Int16](repeating: 0, count: size)
            #expect(tone.read(into: &chunk) == size)
            produced += chunk
        }
        for (index, value) in produced.enumerated() {
            let expected = ToneSource.sample(at: index, frequency: frequency, amplitude: 0.7)
            #expect(abs(Int(value) - Int(expected)) <= 1, "sample \(index) of \(frequency) Hz")
            if abs(Int(value) - Int(expected)) > 1 { break }
        }
    }

    @Test func periodsOfWholeFrequencies() {
        #expect(ToneSource.periodLength(440) == 1_200)
        #expect(ToneSource.periodLength(880) == 600)
        #expect(ToneSource.periodLength(997) == 48_000)
        #expect(ToneSource.periodLength(440.5) == nil)
        #expect(ToneSource.periodLength(0) == nil)
    }
}
