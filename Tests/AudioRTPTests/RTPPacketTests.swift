import TestSupport
@testable import AudioRTP
import Testing

@Suite struct RTPPacketTests {
    @Test func parsesMinimalPacketFromHandComposedBytes() throws {
        // V=2, no P/X/CC; M=1, PT=96; seq 0x1234; ts 123456; SSRC 0xDEADBEEF; 3 payload bytes.
        let bytes = rtpHexBytes("80 E0 12 34  00 01 E2 40  DE AD BE EF  01 02 03")
        let packet = try RTPPacket(parsing: bytes)
        #expect(packet.header == RTPHeader(marker: true, payloadType: 96, sequenceNumber: 0x1234, timestamp: 123_456, ssrc: 0xDEAD_BEEF))
        #expect(packet.payload == [1, 2, 3])
        #expect(packet.paddingLength == 0)
        #expect(try packet.serialized() == bytes)
    }

    @Test func parsesCSRCsOneByteExtensionAndPadding() throws {
        let bytes = rtpHexBytes("""
            B2 00 00 01  00 00 00 A0  11 22 33 44
            AA AA AA AA  BB BB BB BB
            BE DE 00 02  10 AB 22 01  02 03 00 00
            F0 F1  00 00 03
            """)
        let (header, range) = try RTPHeader.parse(bytes)
        #expect(range == 32..<34)
        #expect(header.csrcs == [0xAAAA_AAAA, 0xBBBB_BBBB])
        #expect(header.marker == false && header.payloadType == 0 && header.timestamp == 160)
        let ext = try #require(header.headerExtension)
        #expect(ext.form == .oneByte)
        #expect(try ext.elements() == [
            RTPHeaderExtensionElement(id: 1, data: [0xAB]), RTPHeaderExtensionElement(id: 2, data: [1, 2, 3]),
        ])
        #expect(ext.element(id: 2) == [1, 2, 3])
        #expect(ext.element(id: 9) == nil)
        let packet = try RTPPacket(parsing: bytes)
        #expect(packet.payload == [0xF0, 0xF1])
        #expect(packet.paddingLength == 3)
        #expect(try packet.serialized() == bytes)
    }

    @Test func twoByteExtensionRoundTrips() throws {
        let elements = [RTPHeaderExtensionElement(id: 1, data: []), RTPHeaderExtensionElement(id: 2, data: [0xAA, 0xBB])]
        let ext = try RTPHeaderExtension(elements: elements)
        #expect(ext.form == .twoByte)  // a zero-length element needs the two-byte form
        #expect(ext.profile == 0x1000)
        #expect(ext.data == rtpHexBytes("01 00 02 02 AA BB 00 00"))
        #expect(try ext.elements() == elements)
        let header = RTPHeader(payloadType: 111, sequenceNumber: 7, timestamp: 9, ssrc: 1, headerExtension: ext)
        let packet = RTPPacket(header: header, payload: [9, 9])
        #expect(try RTPPacket(parsing: packet.serialized()) == packet)
    }

    @Test func oneByteFormIsChosenWhenElementsFit() throws {
        let ext = try RTPHeaderExtension(elements: [RTPHeaderExtensionElement(id: 3, data: [0x80 | 42])])
        #expect(ext.profile == RTPHeaderExtension.oneByteProfile)
        #expect(ext.data == rtpHexBytes("30 AA 00 00"))
        #expect(throws: RTPError.self) {
            try RTPHeaderExtension(elements: [RTPHeaderExtensionElement(id: 15, data: [1])], form: .oneByte)
        }
    }

    @Test func oneByteParsingSkipsPaddingAndStopsAtReservedID() throws {
        let ext = try RTPHeaderExtension(profile: 0xBEDE, data: rtpHexBytes("00 10 AB F0 22 00 00 00"))
        #expect(try ext.elements() == [RTPHeaderExtensionElement(id: 1, data: [0xAB])])
    }

    @Test func nonRFC8285ProfileIsKeptRaw() throws {
        let bytes = rtpHexBytes("90 00 00 01 00 00 00 00 00 00 00 01  AB CD 00 01  01 02 03 04  55")
        let packet = try RTPPacket(parsing: bytes)
        let ext = try #require(packet.header.headerExtension)
        #expect(ext.profile == 0xABCD && ext.form == nil && ext.data == [1, 2, 3, 4])
        #expect(try ext.elements().isEmpty)
        #expect(packet.payload == [0x55])
        #expect(try packet.serialized() == bytes)
    }

    @Test func malformedPacketsGiveClearErrors() {
        #expect(throws: RTPError.truncated(what: "RTP fixed header", needed: 12, available: 3)) {
            try RTPPacket(parsing: [0x80, 0, 0])
        }
        #expect(throws: RTPError.unsupportedVersion(1)) {
            try RTPPacket(parsing: rtpHexBytes("40 00 00 01 00 00 00 00 00 00 00 01"))
        }
        #expect(throws: RTPError.truncated(what: "RTP CSRC list", needed: 16, available: 12)) {
            try RTPPacket(parsing: rtpHexBytes("81 00 00 01 00 00 00 00 00 00 00 01"))
        }
        #expect(throws: RTPError.truncated(what: "RTP header extension data", needed: 20, available: 16)) {
            try RTPPacket(parsing: rtpHexBytes("90 00 00 01 00 00 00 00 00 00 00 01 BE DE 00 01"))
        }
        // Padding count 0 and a count larger than what follows the header.
        #expect(throws: RTPError.self) { try RTPPacket(parsing: rtpHexBytes("A0 00 00 01 00 00 00 00 00 00 00 01 AA 00")) }
        #expect(throws: RTPError.self) { try RTPPacket(parsing: rtpHexBytes("A0 00 00 01 00 00 00 00 00 00 00 01 AA 05")) }
        let message = RTPError.truncated(what: "RTP fixed header", needed: 12, available: 3).description
        #expect(message.contains("RTP fixed header") && message.contains("12"))
    }

    @Test func malformedExtensionElementThrowsButPacketParses() throws {
        // Element claims 16 bytes in a 4-byte block: the packet is fine, elements() is not.
        let bytes = rtpHexBytes("90 00 00 01 00 00 00 00 00 00 00 01 BE DE 00 01 1F 00 00 00")
        let packet = try RTPPacket(parsing: bytes)
        let ext = try #require(packet.header.headerExtension)
        #expect(throws: RTPError.self) { try ext.elements() }
        #expect(ext.element(id: 1) == nil)
    }

    @Test func serializationRejectsFieldsThatDoNotFit() {
        var buffer: [UInt8] = []
        #expect(throws: RTPError.self) {
            try RTPHeader(payloadType: 128, sequenceNumber: 0, timestamp: 0, ssrc: 0).serialize(into: &buffer)
        }
        #expect(throws: RTPError.self) {
            try RTPHeader(payloadType: 0, sequenceNumber: 0, timestamp: 0, ssrc: 0, csrcs: Array(repeating: 1, count: 16))
                .serialize(into: &buffer)
        }
        #expect(throws: RTPError.self) {
            try RTPPacket(header: RTPHeader(payloadType: 0, sequenceNumber: 0, timestamp: 0, ssrc: 0), payload: [], paddingLength: 256)
                .serialized()
        }
        #expect(throws: RTPError.self) { try RTPHeaderExtension(profile: 0xBEDE, data: [1, 2, 3]) }
        #expect(buffer.isEmpty)
    }

    @Test func parseReturnsPayloadRangeWithoutCopying() throws {
        let bytes = rtpHexBytes("80 6F 00 02 00 00 03 C0 00 00 00 05 FC FF FE")
        let range = try bytes.withUnsafeBytes { raw in try RTPHeader.parse(raw).payloadRange }
        #expect(Array(bytes[range]) == [0xFC, 0xFF, 0xFE])
    }
}

@Suite struct RTPDatagramKindTests {
    @Test func classifiesByRFC7983Ranges() {
        #expect(DatagramKind.classify([0x00, 0x01, 0x00, 0x00]) == .stun)
        #expect(DatagramKind.classify([0x03]) == .stun)
        #expect(DatagramKind.classify([0x10]) == .zrtp)
        #expect(DatagramKind.classify([0x16, 0xFE, 0xFD]) == .dtls)
        #expect(DatagramKind.classify([0x3F]) == .dtls)
        #expect(DatagramKind.classify([0x40, 0x00]) == .turnChannel)
        #expect(DatagramKind.classify([0x80, 0x6F]) == .rtp)  // Opus PT 111
        #expect(DatagramKind.classify([0x80, 0xEF]) == .rtp)  // PT 111 with marker
        #expect(DatagramKind.classify([0x80, 0x00]) == .rtp)  // PCMU
        #expect(DatagramKind.classify([0x81, 0xC8]) == .rtcp)  // SR
        #expect(DatagramKind.classify([0x80, 0xC9]) == .rtcp)  // RR
        #expect(DatagramKind.classify([0x81, 0xCE]) == .rtcp)  // PSFB
        #expect(DatagramKind.classify([0x80, 0xDF]) == .rtcp)  // 223, top of the range
        #expect(DatagramKind.classify([0x80, 0xE0]) == .rtp)  // PT 96 + marker: not RTCP
        #expect(DatagramKind.classify([0x80, 0x5F]) == .rtcp)  // masked 95: RFC 5761 reserves 64-95
        #expect(DatagramKind.classify([0x80]) == .unknown)
        #expect(DatagramKind.classify([]) == .unknown)
        #expect(DatagramKind.classify([0xC0, 0x00]) == .unknown)
        #expect(DatagramKind.classify([0x14]) == .dtls)
        #expect(DatagramKind.classify([0x04]) == .unknown)
    }
}
