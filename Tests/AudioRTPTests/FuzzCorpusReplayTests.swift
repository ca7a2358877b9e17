@testable import AudioRTP
import Testing
import TestSupport

/// Replays the rtp, rtcp and datagram-demux fuzz corpora (Tests/Fuzz) through the normal build:
/// packets that parse serialize back to the same packets.
@Suite struct FuzzCorpusReplayTests {
    @Test func rtpPackets() throws {
        for (name, bytes) in try FuzzCorpus.inputs("rtp") + FuzzCorpus.inputs("datagram-demux") {
            guard let packet = try? RTPPacket(parsing: bytes) else { continue }
            #expect((try? RTPPacket(parsing: packet.serialized())) == packet, "\(name)")
        }
    }

    @Test func rtcpCompounds() throws {
        for (name, bytes) in try FuzzCorpus.inputs("rtcp") + FuzzCorpus.inputs("datagram-demux") {
            guard let packets = try? RTCPPacket.parseCompound(bytes) else { continue }
            #expect((try? RTCPPacket.parseCompound(RTCPPacket.serializeCompound(packets))) == packets, "\(name)")
        }
    }

    @Test func aiortcSeedsParse() throws {
        for (name, bytes) in try FuzzCorpus.inputs("rtp") where name.hasPrefix("aiortc-") {
            #expect((try? RTPPacket(parsing: bytes)) != nil, "\(name)")
        }
        for (name, bytes) in try FuzzCorpus.inputs("rtcp") where name.hasPrefix("aiortc-") {
            #expect((try? RTCPPacket.parseCompound(bytes)) != nil, "\(name)")
        }
    }
}

/// Inputs the rtcp fuzz harness (Tests/Fuzz/rtcp) broke an invariant on, now handled.
@Suite struct RTCPFuzzRegressionTests {
    /// A BYE reason of 255 bytes that are not UTF-8 became, repaired with U+FFFD, a longer string
    /// than a BYE can carry: the parsed compound could not be serialized again.
    @Test func aByeReasonThatIsNotUTF8IsLeftOut() throws {
        var bye: [UInt8] = [0x81, 203, 0, 65, 0xCA, 0xFE, 0xBA, 0xBE, 255]
        bye += Array(repeating: 0xFF, count: 255)
        let packets = try RTCPPacket.parseCompound(bye)
        #expect(packets == [.goodbye(RTCPGoodbye(sources: [0xCAFE_BABE], reason: nil))])
        #expect(try RTCPPacket.parseCompound(RTCPPacket.serializeCompound(packets)) == packets)
    }

    @Test func aUTF8ByeReasonIsKept() throws {
        let reason = "bye \u{1F44B}"
        var bye: [UInt8] = [0x81, 203, 0, 4, 0, 0, 0, 1, UInt8(reason.utf8.count)] + Array(reason.utf8)
        bye += Array(repeating: 0, count: (4 - bye.count % 4) % 4)
        bye[3] = UInt8(bye.count / 4 - 1)
        #expect(try RTCPPacket.parseCompound(bye) == [.goodbye(RTCPGoodbye(sources: [1], reason: reason))])
    }

    /// The input as the fuzzer found it: SR, SDES and a BYE with such a reason.
    @Test func theFuzzCrashInputRoundTrips() throws {
        let packets = try RTCPPacket.parseCompound(FuzzCorpus.input("rtcp", "crash-bye-reason-not-utf8"))
        #expect(try RTCPPacket.parseCompound(RTCPPacket.serializeCompound(packets)) == packets)
    }
}
