@testable import MediaBenchmarks  // SpectrumAnalysis and AudioLevels measure the codec output
import TestSupport
@testable import AudioCodec
import AudioPipe
import COpus
import Foundation
import Testing

@Suite struct CodecOpusTests {
    @Test func roundTripOf440HzKeepsPitchAndSNR() throws {
        let encoder = try OpusEncoder()
        let decoder = try OpusDecoder()
        let input = TestSignal.sine(frequency: 440, amplitude: 0.5, count: 48_000)
        var output: [Int16] = []
        for frame in TestSignal.frames(input) {
            let payload = try encoder.encode(frame)
            #expect(!payload.isEmpty && payload.count < 1_500)
            let decoded = try decoder.decode(payload)
            #expect(decoded.count == 960)
            output += decoded
        }
        #expect(output.count == 48_000)
        let (snr, lag) = TestSignal.bestAlignedSNR(reference: input, output: output, maxLag: 1_000, start: 4_800)
        print("Opus 440 Hz round trip: SNR \(String(format: "%.1f", snr)) dB at lag \(lag) (lookahead \(encoder.lookahead))")
        #expect(snr >= 20)
        let pitch = try #require(SpectrumAnalysis.dominantFrequency(Array(output[4_800...]), sampleRate: 48_000))
        #expect(abs(pitch - 440) <= 2)
    }

    @Test func concealmentProducesOneFrame() throws {
        let encoder = try OpusEncoder()
        let decoder = try OpusDecoder()
        for frame in TestSignal.frames(TestSignal.sine(frequency: 300, count: 9_600)) {
            _ = try decoder.decode(try encoder.encode(frame))
        }
        let concealed = decoder.conceal()
        #expect(concealed.count == 960)
        #expect(concealed.contains { $0 != 0 }, "PLC should extrapolate the tone, not emit silence")
        #expect(try OpusDecoder().conceal().count == 960, "a fresh decoder conceals a 20 ms frame too")
    }

    @Test func forwardErrorCorrectionBeatsConcealment() throws {
        var configuration = OpusEncoderConfiguration(expectedPacketLossPercent: 20)
        configuration.signal = .voice
        let encoder = try OpusEncoder(configuration: configuration)
        let packets = try TestSignal.frames(TestSignal.speechLike(count: 48_000 * 2)).map { try encoder.encode($0) }
        let reference = try OpusDecoder()
        let lossless = try packets.map { try reference.decode($0) }
        var fecError = 0.0
        var plcError = 0.0
        for lost in [15, 25, 35, 45, 55, 65, 75, 85] {            // frames at 100 ms segment boundaries and inside
            let withFEC = try OpusDecoder()
            let withPLC = try OpusDecoder()
            for index in 0..<lost {
                _ = try withFEC.decode(packets[index])
                _ = try withPLC.decode(packets[index])
            }
            let recovered = withFEC.decodeFEC(from: packets[lost + 1])
            let concealed = withPLC.conceal()
            #expect(recovered.count == 960 && concealed.count == 960)
            fecError += TestSignal.errorEnergy(recovered, lossless[lost])
            plcError += TestSignal.errorEnergy(concealed, lossless[lost])
        }
        print("Opus loss recovery error energy: FEC \(String(format: "%.3g", fecError)), PLC \(String(format: "%.3g", plcError))")
        #expect(fecError < plcError)
    }

    @Test func stereoPacketDecodesToMono() throws {
        let stereoEncoder = try OpusEncoder(configuration: OpusEncoderConfiguration(application: .audio, bitrate: 64_000),
                                            channels: 2)
        let decoder = try OpusDecoder()
        let stereo = TestSignal.sine(frequency: 440, count: 24_000, channelGains: [1, 0.5])
        var output: [Int16] = []
        for start in stride(from: 0, to: stereo.count, by: 1_920) {
            let packet = try stereoEncoder.encode(Array(stereo[start..<(start + 1_920)]))
            #expect(opus_packet_get_nb_channels(packet) == 2, "the test needs real stereo packets")
            let decoded = try decoder.decode(packet)
            #expect(decoded.count == 960)
            output += decoded
        }
        let pitch = try #require(SpectrumAnalysis.dominantFrequency(Array(output[4_800...]), sampleRate: 48_000))
        #expect(abs(pitch - 440) <= 2)
        let levels = AudioLevels.measure(Array(output[4_800...]))
        #expect(levels.rmsDBFS > -20, "the downmix keeps the tone's energy: \(levels)")
    }

    @Test func dtxFramesAreReported() throws {
        let encoder = try OpusEncoder(configuration: OpusEncoderConfiguration(dtx: true))
        let silence = [Int16](repeating: 0, count: 960)
        var sawDTX = false
        for _ in 0..<50 {
            let payload = try encoder.encode(silence)
            #expect(encoder.lastFrameWasDTX == OpusEncoder.isDTXFrame(payload))
            sawDTX = sawDTX || encoder.lastFrameWasDTX
        }
        #expect(sawDTX)
        _ = try encoder.encode(TestSignal.sine(frequency: 440, count: 960))
        #expect(!encoder.lastFrameWasDTX)
    }

    @Test func errorsAreClear() throws {
        let encoder = try OpusEncoder()
        #expect(throws: CodecError.wrongFrameSize(expected: 960, got: 100)) { try encoder.encode([Int16](repeating: 0, count: 100)) }
        let decoder = try OpusDecoder()
        #expect(throws: CodecError.emptyPayload) { try decoder.decode([UInt8]()) }
        do {
            _ = try decoder.decode([UInt8]([0x03]))               // code-3 packet without its frame-count byte
            Issue.record("a corrupt packet must not decode")
        } catch let error as CodecError {
            guard case let .opus(function, code, message) = error else { Issue.record("unexpected \(error)"); return }
            #expect(function == "opus_decode" && code == OPUS_INVALID_PACKET)
            #expect(message == "corrupted stream")
            #expect(error.description.contains("corrupted stream"))
        }
        #expect(throws: CodecError.self) { try OpusEncoder(configuration: OpusEncoderConfiguration(bitrate: 100)) }
        #expect(throws: CodecError.self) { try OpusEncoder(configuration: OpusEncoderConfiguration(complexity: 11)) }
        try encoder.setBitrate(24_000)
        #expect(encoder.configuration.bitrate == 24_000)
        #expect(throws: CodecError.self) { try encoder.setExpectedPacketLoss(percent: 101) }
    }
}
