import TestSupport
@testable import AudioRTP
import Testing

@Suite struct RTCPPacketTests {
    static let senderReportBytes = rtpHexBytes("""
        81 C8 00 0C  11 22 33 44
        83 AA 7E 80  80 00 00 00  00 00 03 C0  00 00 00 0A  00 00 06 40
        55 66 77 88  40 00 00 05  00 01 00 10  00 00 00 20  12 34 56 78  00 01 80 00
        """)
    static let sourceDescriptionBytes = rtpHexBytes("81 CA 00 03  11 22 33 44  01 05 61 62 63 64 65 00")
    static let goodbyeBytes = rtpHexBytes("81 CB 00 03  11 22 33 44  04 64 6F 6E 65 00 00 00")
    static let pictureLossBytes = rtpHexBytes("81 CE 00 02  11 22 33 44  55 66 77 88")

    @Test func parsesSenderReportVector() throws {
        let packets = try RTCPPacket.parseCompound(Self.senderReportBytes)
        let block = RTCPReportBlock(
            ssrc: 0x5566_7788, fractionLost: 64, cumulativeLost: 5, extendedHighestSequence: 0x1_0010, jitter: 32,
            lastSenderReport: 0x1234_5678, delaySinceLastSenderReport: 0x1_8000)
        let expected = RTCPSenderReport(
            ssrc: 0x1122_3344, ntpTimestamp: NTPTimestamp(seconds: 2_208_988_800, fraction: 0x8000_0000),
            rtpTimestamp: 960, packetCount: 10, octetCount: 1600, reportBlocks: [block])
        #expect(packets == [.senderReport(expected)])
        #expect(expected.ntpTimestamp.unixTime == 0.5)
        #expect(NTPTimestamp.seconds(fromCompact: block.delaySinceLastSenderReport) == 1.5)
        #expect(try RTCPPacket.serializeCompound(packets) == Self.senderReportBytes)
    }

    @Test func receiverReportWithNegativeCumulativeLost() throws {
        let bytes = rtpHexBytes("81 C9 00 07  AA BB CC DD  01 02 03 04  00 FF FF FF  00 00 FF FF  00 00 00 00  00 00 00 00  00 00 00 00")
        let packets = try RTCPPacket.parseCompound(bytes)
        guard case let .receiverReport(report) = packets.first else { Issue.record("not an RR"); return }
        #expect(report.ssrc == 0xAABB_CCDD)
        #expect(report.reportBlocks == [RTCPReportBlock(ssrc: 0x0102_0304, cumulativeLost: -1, extendedHighestSequence: 0xFFFF)])
        #expect(try RTCPPacket.serializeCompound(packets) == bytes)
    }

    @Test func cumulativeLostSaturatesAt24Bits() throws {
        let report = RTCPReceiverReport(ssrc: 1, reportBlocks: [RTCPReportBlock(ssrc: 2, cumulativeLost: 10_000_000)])
        let bytes = try RTCPPacket.serializeCompound([.receiverReport(report)])
        #expect(Array(bytes[12..<16]) == [0x00, 0x7F, 0xFF, 0xFF])
    }

    @Test func parsesSourceDescriptionAndGoodbyeVectors() throws {
        #expect(try RTCPPacket.parseCompound(Self.sourceDescriptionBytes) == [.sourceDescription(RTCPSourceDescription(ssrc: 0x1122_3344, cname: "abcde"))])
        #expect(try RTCPPacket.parseCompound(Self.goodbyeBytes) == [.goodbye(RTCPGoodbye(sources: [0x1122_3344], reason: "done"))])
        #expect(try RTCPPacket.serializeCompound([.sourceDescription(RTCPSourceDescription(ssrc: 0x1122_3344, cname: "abcde"))]) == Self.sourceDescriptionBytes)
        #expect(try RTCPPacket.serializeCompound([.goodbye(RTCPGoodbye(sources: [0x1122_3344], reason: "done"))]) == Self.goodbyeBytes)
    }

    @Test func sourceDescriptionChunkEndingOnWordBoundaryGetsAFullNullWord() throws {
        // CNAME of 6 bytes: items are exactly 8 bytes, so a whole null word must follow.
        let bytes = try RTCPPacket.serializeCompound([.sourceDescription(RTCPSourceDescription(ssrc: 1, cname: "abcdef"))])
        #expect(bytes == rtpHexBytes("81 CA 00 04  00 00 00 01  01 06 61 62 63 64 65 66  00 00 00 00"))
        let parsed = try RTCPPacket.parseCompound(bytes)
        guard case let .sourceDescription(description) = parsed.first else { Issue.record("not SDES"); return }
        #expect(description.cname(for: 1) == "abcdef")
        #expect(description.cname(for: 2) == nil)
    }

    @Test func compoundWithUnknownFeedbackIsParsedGracefully() throws {
        let compound = Self.senderReportBytes + Self.sourceDescriptionBytes + Self.pictureLossBytes
            + rtpHexBytes("80 CF 00 01  11 22 33 44")  // XR with no report blocks
        let packets = try RTCPPacket.parseCompound(compound)
        #expect(packets.count == 4)
        #expect(packets[2] == .unknown(RTCPUnknownPacket(packetType: 206, count: 1, body: rtpHexBytes("11 22 33 44 55 66 77 88"))))
        #expect(packets[3].packetType == RTCPPacket.PacketType.extendedReport)
        #expect(try RTCPPacket.serializeCompound(packets) == compound)
    }

    @Test func builtCompoundsRoundTrip() throws {
        let block = RTCPReportBlock(ssrc: 7, fractionLost: 3, cumulativeLost: 12, extendedHighestSequence: 70_000, jitter: 44)
        let sender = RTCPSenderReport(
            ssrc: 99, ntpTimestamp: NTPTimestamp(seconds: 3_900_000_000, fraction: 123), rtpTimestamp: 5, packetCount: 6,
            octetCount: 7, reportBlocks: [block])
        let senderCompound = try RTCPPacket.senderReportCompound(sender, cname: "agent@example")
        #expect(try RTCPPacket.parseCompound(senderCompound) == [
            .senderReport(sender), .sourceDescription(RTCPSourceDescription(ssrc: 99, cname: "agent@example")),
        ])
        let receiver = RTCPReceiverReport(ssrc: 99, reportBlocks: [block])
        let receiverCompound = try RTCPPacket.receiverReportCompound(receiver, cname: "x")
        #expect(try RTCPPacket.parseCompound(receiverCompound) == [
            .receiverReport(receiver), .sourceDescription(RTCPSourceDescription(ssrc: 99, cname: "x")),
        ])
        #expect(DatagramKind.classify(senderCompound) == .rtcp && DatagramKind.classify(receiverCompound) == .rtcp)
        let empty = RTCPReceiverReport(ssrc: 5)
        #expect(try RTCPPacket.serializeCompound([.receiverReport(empty)]) == rtpHexBytes("80 C9 00 01 00 00 00 05"))
    }

    @Test func unalignedUnknownBodyIsPaddedAndRestored() throws {
        let packet = RTCPPacket.unknown(RTCPUnknownPacket(packetType: 204, count: 2, body: [1, 2, 3, 4, 5]))
        let bytes = try RTCPPacket.serializeCompound([packet])
        #expect(bytes == rtpHexBytes("A2 CC 00 02  01 02 03 04  05 00 00 03"))
        #expect(try RTCPPacket.parseCompound(bytes) == [packet])
    }

    @Test func goodbyeWithoutReasonAndMultipleSources() throws {
        let goodbye = RTCPPacket.goodbye(RTCPGoodbye(sources: [1, 2, 3]))
        let bytes = try RTCPPacket.serializeCompound([goodbye])
        #expect(bytes == rtpHexBytes("83 CB 00 03 00 00 00 01 00 00 00 02 00 00 00 03"))
        #expect(try RTCPPacket.parseCompound(bytes) == [goodbye])
    }

    @Test func malformedCompoundsGiveClearErrors() {
        #expect(throws: RTPError.self) { try RTCPPacket.parseCompound([]) }
        #expect(throws: RTPError.unsupportedVersion(1)) { try RTCPPacket.parseCompound(rtpHexBytes("41 C9 00 01 00 00 00 01")) }
        // Length says 4 words but only 3 are there.
        #expect(throws: RTPError.truncated(what: "RTCP packet", needed: 16, available: 12)) {
            try RTCPPacket.parseCompound(rtpHexBytes("80 C9 00 03 00 00 00 01 00 00 00 02"))
        }
        // RR announcing one block without room for it.
        #expect(throws: RTPError.self) { try RTCPPacket.parseCompound(rtpHexBytes("81 C9 00 01 00 00 00 01")) }
        // Trailing garbage after a valid packet.
        #expect(throws: RTPError.self) { try RTCPPacket.parseCompound(rtpHexBytes("80 C9 00 01 00 00 00 01 80")) }
        // Padding count larger than the packet.
        #expect(throws: RTPError.self) { try RTCPPacket.parseCompound(rtpHexBytes("A0 C9 00 01 00 00 00 09")) }
        // SDES item running past the end.
        #expect(throws: RTPError.self) { try RTCPPacket.parseCompound(rtpHexBytes("81 CA 00 02 00 00 00 01 01 09 61 62")) }
        // BYE reason running past the end.
        #expect(throws: RTPError.self) { try RTCPPacket.parseCompound(rtpHexBytes("81 CB 00 02 00 00 00 01 09 61 62 63")) }
    }

    @Test func serializationRejectsOversizedContents() {
        let blocks = Array(repeating: RTCPReportBlock(ssrc: 1), count: 32)
        #expect(throws: RTPError.self) { try RTCPPacket.serializeCompound([.receiverReport(RTCPReceiverReport(ssrc: 1, reportBlocks: blocks))]) }
        #expect(throws: RTPError.self) {
            try RTCPPacket.serializeCompound([.goodbye(RTCPGoodbye(sources: [1], reason: String(repeating: "x", count: 256)))])
        }
        let longItem = RTCPSourceDescription.Item(type: .note, value: Array(repeating: 0x61, count: 256))
        #expect(throws: RTPError.self) {
            try RTCPPacket.serializeCompound([.sourceDescription(RTCPSourceDescription(chunks: [.init(ssrc: 1, items: [longItem])]))])
        }
    }
}
