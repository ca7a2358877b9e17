import MediaTestSupport
@testable import AudioPipe
import AudioRTP
import Testing
import TestSupport

/// Replays the telephone-event and datagram-demux fuzz corpora (Tests/Fuzz) through the normal
/// build: the DTMF receiver and SRTP take every kept input without trapping.
@Suite struct FuzzCorpusReplayTests {
    @Test func telephoneEventSequences() throws {
        for (_, bytes) in try FuzzCorpus.inputs("telephone-event") {
            var receiver = DTMFReceiver(memory: 4)
            var rest = bytes[...]
            while !rest.isEmpty {
                let header = Array(rest.prefix(8)) + Array(repeating: 0, count: max(0, 8 - rest.count))
                rest = rest.dropFirst(8)
                let payload = rest.prefix(Int(header[0] & 7))
                rest = rest.dropFirst(payload.count)
                let timestamp = header[3...6].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
                _ = try? receiver.receive(payload: payload, timestamp: timestamp,
                                          sequenceNumber: UInt16(header[1]) << 8 | UInt16(header[2]), marker: header[7] & 1 == 1)
            }
        }
    }

    @Test func srtpRoundTripOfDemuxedDatagrams() throws {
        let salt = Array(repeating: UInt8(0xA5), count: SRTPProfile.aes128CmSha1_80.saltLength)
        for (name, bytes) in try FuzzCorpus.inputs("datagram-demux") {
            let sender = try SRTPSession(profile: .aes128CmSha1_80, localKey: Array(0..<16), localSalt: salt,
                                         remoteKey: Array(16..<32), remoteSalt: salt)
            let receiver = try SRTPSession(profile: .aes128CmSha1_80, localKey: Array(16..<32), localSalt: salt,
                                           remoteKey: Array(0..<16), remoteSalt: salt)
            switch DatagramKind.classify(bytes) {
            case .rtp:
                #expect((try? receiver.unprotectRTP(bytes)) == nil, "\(name): a forged SRTP packet was accepted")
                if let protected = try? sender.protectRTP(bytes) { #expect(try receiver.unprotectRTP(protected) == bytes, "\(name)") }
            case .rtcp:
                #expect((try? receiver.unprotectRTCP(bytes)) == nil, "\(name): a forged SRTCP packet was accepted")
                if let protected = try? sender.protectRTCP(bytes) { #expect(try receiver.unprotectRTCP(protected) == bytes, "\(name)") }
            default:
                break
            }
        }
    }
}
