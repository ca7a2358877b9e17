import TestSupport
@testable import AudioCodec
import Testing

/// `OpusPacketFEC.carriesFEC`: it must say yes exactly where `decodeFEC` really rebuilds the frame
/// before (the playout path counts FEC recoveries and falls back to faded PLC by it).
@Suite struct OpusPacketFECTests {
    static func packets(_ configuration: OpusEncoderConfiguration, seconds: Int = 2) throws -> [[UInt8]] {
        let encoder = try OpusEncoder(configuration: configuration)
        return try TestSignal.frames(TestSignal.speechLike(count: 48_000 * seconds)).map { try encoder.encode($0) }
    }

    @Test func aStreamWithFECSaysSoAndEachSuchPacketRebuildsTheFrameBefore() throws {
        let packets = try Self.packets(OpusEncoderConfiguration(inbandFEC: true, expectedPacketLossPercent: 10))
        let flagged = packets.indices.filter { OpusPacketFEC.carriesFEC(packets[$0]) }
        print("packets carrying FEC: \(flagged.count) of \(packets.count)")
        #expect(!OpusPacketFEC.carriesFEC(packets[0]), "the first packet has no frame before it to protect")
        #expect(flagged.count > packets.count / 2)
        // Where the flag is set, the next packet's FEC rebuilds a lost frame much better than PLC.
        let lossless = try OpusDecoder()
        let reference = try packets.map { try lossless.decode($0) }
        var fecError = 0.0, plcError = 0.0
        for lost in flagged.map({ $0 - 1 }).filter({ $0 >= 10 }).prefix(8) {
            let withFEC = try OpusDecoder(), withPLC = try OpusDecoder()
            for index in 0..<lost {
                _ = try withFEC.decode(packets[index])
                _ = try withPLC.decode(packets[index])
            }
            fecError += TestSignal.errorEnergy(withFEC.decodeFEC(from: packets[lost + 1]), reference[lost])
            plcError += TestSignal.errorEnergy(withPLC.conceal(), reference[lost])
        }
        #expect(fecError < 0.5 * plcError, "FEC \(fecError) against PLC \(plcError)")
    }

    @Test func streamsWithoutFECAndCELTPacketsSayNo() throws {
        let off = try Self.packets(OpusEncoderConfiguration(inbandFEC: false))
        #expect(off.allSatisfy { !OpusPacketFEC.carriesFEC($0) })
        // The restricted-low-delay application is CELT only: CELT packets never carry FEC, whatever the setting.
        let celt = try Self.packets(OpusEncoderConfiguration(application: .restrictedLowDelay, inbandFEC: true))
        #expect(celt.allSatisfy { $0[0] >> 3 >= 16 }, "the encoder was expected to choose CELT")
        #expect(celt.allSatisfy { !OpusPacketFEC.carriesFEC($0) })
    }

    @Test func malformedOrEmptyPayloadsSayNo() {
        #expect(!OpusPacketFEC.carriesFEC([]))
        // A SILK 20 ms TOC with the LBRR bit set in what follows, but code 3 with a frame count of 0.
        #expect(!OpusPacketFEC.carriesFEC([0x0B, 0x00, 0xFF]))
        // Code 2 (two VBR frames) whose first length runs past the end.
        #expect(!OpusPacketFEC.carriesFEC([0x0A, 0xFB, 0xFF]))
    }
}
