import TestSupport
@testable import AudioPipe
import Foundation
import Testing

/// Opus in-band FEC as a call uses it: the codec pair a call builds from its configuration
/// (`CallCodecSet`, what `CallMedia` starts its audio engine with) and the playout path's answer to
/// one lost packet (`decodeFEC` from the next packet, as `CallAudioEngine` does for `.lost(next)`).
@Suite struct CallFECTests {
    /// Opus as a browser offers it (`useinbandfec=1`).
    static let browserOpus = AudioCodec.opus(payloadType: 111, parameters: OpusParameters(parameters: ["minptime": "10", "useinbandfec": "1"]))

    /// Error energies of frames rebuilt after one loss (at each of `losses`) against the lossless
    /// decode: from the next packet's FEC, and by plain concealment.
    static func recoveryErrors(opusFEC: Bool, losses: [Int] = [15, 25, 35, 45, 55, 65, 75, 85]) throws -> (fec: Double, plc: Double) {
        let configuration = CallMediaConfiguration(opusFEC: opusFEC)
        let sender = try CallCodecSet(codec: browserOpus, configuration: configuration)
        let packets = try TestSignal.frames(TestSignal.speechLike(count: 48_000 * 2)).map { try sender.encoder.encode($0) }
        let lossless = try CallCodecSet(codec: browserOpus, configuration: configuration).decoder
        let reference = try packets.map { try lossless.decode($0) }
        var fec = 0.0, plc = 0.0
        for lost in losses {
            let withFEC = try CallCodecSet(codec: browserOpus, configuration: configuration).decoder
            let withPLC = try CallCodecSet(codec: browserOpus, configuration: configuration).decoder
            for index in 0..<lost {
                _ = try withFEC.decode(packets[index])
                _ = try withPLC.decode(packets[index])
            }
            fec += TestSignal.errorEnergy(withFEC.decodeFEC(from: packets[lost + 1]), reference[lost])
            plc += TestSignal.errorEnergy(withPLC.conceal(), reference[lost])
        }
        return (fec, plc)
    }

    @Test func aCallSendsFECThatRebuildsOneLostPacketFromTheNext() throws {
        let on = try Self.recoveryErrors(opusFEC: true)
        let off = try Self.recoveryErrors(opusFEC: false)
        print("call FEC recovery error energy: on \(on.fec) (PLC \(on.plc)); off \(off.fec) (PLC \(off.plc))")
        #expect(on.fec < 0.5 * on.plc, "with opusFEC on (the default), a lost frame is rebuilt, not guessed")
        // The check above can tell: without FEC in the stream the same path only conceals.
        #expect(off.fec > 0.5 * off.plc)
    }
}
