@testable import MediaBenchmarks  // SpectrumAnalysis and AudioLevels measure the codec output
import TestSupport
@testable import AudioCodec
import AudioPipe
import Foundation
import Testing

@Suite struct CodecResamplerTests {
    /// Feeds `input` in 20 ms chunks of the input rate, then flushes.
    private func convert(_ resampler: Resampler, _ input: [Int16]) throws -> [Int16] {
        let chunk = resampler.inputRate / 50 * resampler.inputChannels
        var output: [Int16] = []
        for start in stride(from: 0, to: input.count, by: chunk) {
            try input[start..<min(input.count, start + chunk)].withUnsafeBufferPointer {
                try resampler.process($0, appendingTo: &output)
            }
        }
        try resampler.flush(appendingTo: &output)
        return output
    }

    @Test func stereo44kToMono48kKeepsA1kHzTone() throws {
        let input = TestSignal.sine(frequency: 1_000, amplitude: 0.5, count: 44_100, sampleRate: 44_100, channelGains: [1, 1])
        let resampler = try Resampler(inputRate: 44_100, inputChannels: 2)
        let output = try convert(resampler, input)
        #expect(abs(output.count - 48_000) <= 2, "got \(output.count) samples")
        let middle = Array(output[4_800..<43_200])
        let pitch = try #require(SpectrumAnalysis.dominantFrequency(middle, sampleRate: 48_000))
        #expect(abs(pitch - 1_000) <= 2)
        let levels = AudioLevels.measure(middle)
        #expect(abs(levels.rmsDBFS - (20 * log10(0.5 / 2.squareRoot()))) < 0.5, "\(levels)")
    }

    @Test func downmixAveragesChannels() throws {
        let opposite = TestSignal.sine(frequency: 1_000, count: 4_410, sampleRate: 44_100, channelGains: [1, -1])
        let cancelled = try convert(try Resampler(inputRate: 44_100, inputChannels: 2), opposite)
        #expect(AudioLevels.measure(cancelled).peakDBFS < -80)
        let oneSided = TestSignal.sine(frequency: 1_000, amplitude: 0.5, count: 48_000, channelGains: [1, 0])
        let mono = try convert(try Resampler(inputRate: 48_000, inputChannels: 2), oneSided)
        #expect(mono.count == 48_000)
        #expect(abs(AudioLevels.measure(mono).rmsDBFS - (20 * log10(0.25 / 2.squareRoot()))) < 0.1)
    }

    @Test func monoToOtherRatesAndChannels() throws {
        let tone = TestSignal.sine(frequency: 440, count: 48_000)
        let narrow = try convert(try Resampler(inputRate: 48_000, outputRate: 8_000, quality: .telephony), tone)
        #expect(abs(narrow.count - 8_000) <= 2)
        #expect(abs((SpectrumAnalysis.dominantFrequency(narrow, sampleRate: 8_000) ?? 0) - 440) <= 2)
        let stereo = try convert(try Resampler(inputRate: 48_000, outputRate: 44_100, outputChannels: 2, quality: .veryHigh), tone)
        #expect(abs(stereo.count - 88_200) <= 4)
        #expect(stride(from: 0, to: stereo.count, by: 2).allSatisfy { stereo[$0] == stereo[$0 + 1] })
    }

    @Test func invalidSettingsAreRejected() throws {
        #expect(throws: CodecError.self) { try Resampler(inputRate: 0) }
        #expect(throws: CodecError.self) { try Resampler(inputRate: 48_000, inputChannels: 0) }
        let stereo = try Resampler(inputRate: 44_100, inputChannels: 2)
        #expect(throws: CodecError.self) { try stereo.process([1, 2, 3]) }
    }
}

@Suite struct CodecBenchmarks {
    @Test func opusEncodeDecodeMicrosecondsPerFrame() {
        let result = CodecBenchmark.run(frames: 250)
        print(String(format: "Opus benchmark (debug build unless -c release): encode %.1f µs/frame, decode %.1f µs/frame",
                     result.encodeMicros, result.decodeMicros))
        #expect(result.encodeMicros > 0 && result.decodeMicros > 0)
    }

    @Test func cadenceBenchmarkTimesBothModesOverEveryCountedBlock() throws {
        let result = try CodecCadenceBenchmark.run(signal: .tone880, blocks: 2, framesPerBlock: 5, periodNanoseconds: 1_000_000)
        #expect(result.framesPerMode == 10)
        #expect(result.backToBackMicros > 0 && result.pacedMicros > 0)
    }

    @Test(arguments: CodecCadenceBenchmark.Signal.allCases)
    func cadenceSignalsAreOneSecondOfAudibleAudio(signal: CodecCadenceBenchmark.Signal) {
        let samples = CodecCadenceBenchmark.samples(of: signal)
        #expect(samples.count == AudioFormat.sampleRate && samples.count % AudioFormat.samplesPerFrame == 0)
        #expect(samples.map { abs(Int($0)) }.max()! > 8_000)
    }
}

@Suite struct CodecFrameResamplerTests {
    @Test(arguments: [(8_000, 48_000), (48_000, 8_000)])
    func primedResamplerNeverRunsDry(rates: (Int, Int)) throws {
        let resampler = try FrameResampler(inputRate: rates.0, outputRate: rates.1)
        let primed = resampler.topUps
        let tone = TestSignal.sine(frequency: 440, count: rates.0 / 50, sampleRate: rates.0)
        for _ in 0..<1_500 {
            let output = try tone.withUnsafeBufferPointer { try resampler.process($0) }
            #expect(output.count == rates.1 / 50)
        }
        #expect(resampler.topUps == primed, "a top-up after priming would be a click in real audio")
    }
}
