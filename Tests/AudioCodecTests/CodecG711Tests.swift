@testable import MediaBenchmarks  // SpectrumAnalysis and AudioLevels measure the codec output
import TestSupport
@testable import AudioCodec
import AudioPipe
import Foundation
import Testing

@Suite struct CodecG711Tests {
    @Test func knownValues() {
        #expect(G711.muLaw(0) == 0xFF)
        #expect(G711.linear(muLaw: 0xFF) == 0)
        #expect(G711.linear(muLaw: 0x7F) == 0)
        #expect(G711.linear(muLaw: 0x00) == -32_124)
        #expect(G711.linear(muLaw: 0x80) == 32_124)
        #expect(G711.muLaw(32_767) == 0x80)
        #expect(G711.muLaw(-32_768) == 0x00)
        #expect(G711.aLaw(0) == 0xD5)
        #expect(G711.linear(aLaw: 0xD5) == 8)
        #expect(G711.linear(aLaw: 0x55) == -8)
        #expect(G711.linear(aLaw: 0xAA) == 32_256)
        #expect(G711.linear(aLaw: 0x2A) == -32_256)
        #expect(G711.aLaw(32_767) == 0xAA)
        #expect(G711.aLaw(-32_768) == 0x2A)
    }

    @Test func everyCodeSurvivesDecodeThenEncode() {
        for code in 0...255 {
            let byte = UInt8(code)
            let expectedMu: UInt8 = byte == 0x7F ? 0xFF : byte          // µ-law has a negative zero
            #expect(G711.muLaw(G711.linear(muLaw: byte)) == expectedMu, "µ-law \(code)")
            #expect(G711.aLaw(G711.linear(aLaw: byte)) == byte, "A-law \(code)")
        }
    }

    @Test func companderIsMonotonic() {
        var previousMu = Int16.min
        var previousA = Int16.min
        for sample in stride(from: -32_768, through: 32_767, by: 7) {
            let mu = G711.linear(muLaw: G711.muLaw(Int16(sample)))
            let a = G711.linear(aLaw: G711.aLaw(Int16(sample)))
            #expect(mu >= previousMu && a >= previousA)
            previousMu = mu
            previousA = a
        }
    }

    @Test(arguments: [G711.Law.muLaw, .aLaw])
    func companderSNRForMidLevelTone(law: G711.Law) {
        let tone = TestSignal.sine(frequency: 1_000, amplitude: 0.25, count: 8_000, sampleRate: 8_000)
        let decoded = tone.map { G711.decode(G711.encode($0, law: law), law: law) }
        let snr = TestSignal.snr(reference: tone, output: decoded, lag: 0, start: 0, length: tone.count)
        print("G.711 \(law) companding SNR: \(String(format: "%.1f", snr)) dB")
        #expect(snr >= 30)
    }

    @Test(arguments: [G711.Law.muLaw, .aLaw])
    func codecRoundTripAt48kHz(law: G711.Law) throws {
        let encoder: any AudioEncoder = law == .muLaw ? try PCMUEncoder() : try PCMAEncoder()
        let decoder: any AudioDecoder = law == .muLaw ? try PCMUDecoder() : try PCMADecoder()
        #expect(encoder.clockRate == 8_000 && decoder.clockRate == 8_000)
        let input = TestSignal.sine(frequency: 1_000, amplitude: 0.25, count: 48_000)
        var output: [Int16] = []
        for frame in TestSignal.frames(input) {
            let payload = try encoder.encode(frame)
            #expect(payload.count == 160)
            let decoded = try decoder.decode(payload)
            #expect(decoded.count == 960)
            output += decoded
        }
        let (snr, lag) = TestSignal.bestAlignedSNR(reference: input, output: output, maxLag: 4_000, start: 4_800)
        print("PCM\(law == .muLaw ? "U" : "A") 48 kHz round trip: SNR \(String(format: "%.1f", snr)) dB (lag \(lag) mod 48)")
        #expect(snr >= 30)
        let pitch = try #require(SpectrumAnalysis.dominantFrequency(Array(output[9_600...]), sampleRate: 48_000))
        #expect(abs(pitch - 1_000) <= 2)
    }

    @Test func concealmentFadesToSilence() throws {
        let encoder = try PCMUEncoder()
        let decoder = try PCMUDecoder()
        for frame in TestSignal.frames(TestSignal.sine(frequency: 500, count: 9_600)) {
            _ = try decoder.decode(try encoder.encode(frame))
        }
        let levels = (0..<8).map { _ in AudioLevels.measure(decoder.conceal()).rmsDBFS }
        #expect(levels[1] < levels[0])
        #expect(levels[7] == AudioLevels.silenceFloor)
        #expect(decoder.decodeFEC(from: [UInt8](repeating: 0xFF, count: 160)).count == 960)
        #expect(throws: CodecError.emptyPayload) { try decoder.decode([UInt8]()) }
        #expect(throws: CodecError.wrongFrameSize(expected: 960, got: 160)) { try encoder.encode([Int16](repeating: 0, count: 160)) }
    }
}
