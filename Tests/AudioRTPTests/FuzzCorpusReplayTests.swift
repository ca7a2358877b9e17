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
