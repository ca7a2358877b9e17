import TestSupport
@testable import AudioRTP
import Testing

/// Malformed input must produce an `RTPError` or a valid value, never a crash. Random
/// datagrams rarely get past the version check, so valid packets are also mutated and cut.
@Suite struct RTPFuzzTests {
    static let seeds: [[UInt8]] = [
        rtpHexBytes("B2 00 00 01 00 00 00 A0 11 22 33 44 AA AA AA AA BB BB BB BB BE DE 00 02 10 AB 22 01 02 03 00 00 F0 F1 00 00 03"),
        rtpHexBytes("90 6F 00 01 00 00 00 00 00 00 00 01 10 00 00 02 01 00 02 02 AA BB 00 00 55"),
        RTCPPacketTests.senderReportBytes + RTCPPacketTests.sourceDescriptionBytes + RTCPPacketTests.goodbyeBytes,
        RTCPPacketTests.pictureLossBytes + rtpHexBytes("A2 CC 00 02 01 02 03 04 05 00 00 03"),
    ]

    private func mutate(_ seed: [UInt8], using generator: inout RTPSeededGenerator) -> [UInt8] {
        var bytes = seed
        for _ in 0..<Int.random(in: 1...4, using: &generator) {
            switch Int.random(in: 0..<3, using: &generator) {
            case 0 where !bytes.isEmpty:
                bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            case 1 where !bytes.isEmpty:
                bytes.removeLast(Int.random(in: 0...bytes.count, using: &generator))
            default:
                bytes.append(contentsOf: generator.bytes(count: Int.random(in: 1...8, using: &generator)))
            }
        }
        return bytes
    }

    private func exercise(_ bytes: [UInt8]) {
        _ = DatagramKind.classify(bytes)
        if let packet = try? RTPPacket(parsing: bytes) {
            // Whatever parses must serialize and parse back to the same packet.
            if let again = try? RTPPacket(parsing: packet.serialized()) {
                #expect(again == packet)
            } else {
                Issue.record("parsed RTP packet did not round-trip: \(bytes)")
            }
            if let ext = packet.header.headerExtension {
                _ = try? ext.elements()
                _ = ext.element(id: 1)
            }
        }
        if let packets = try? RTCPPacket.parseCompound(bytes), let serialized = try? RTCPPacket.serializeCompound(packets) {
            let reparsed = try? RTCPPacket.parseCompound(serialized)
            // BYE reasons are decoded leniently as UTF-8, so only compare when none is present.
            let hasReason = packets.contains { if case let .goodbye(bye) = $0 { bye.reason != nil } else { false } }
            if !hasReason { #expect(reparsed == packets) }
        }
    }

    @Test func randomDatagramsNeverCrash() {
        var generator = RTPSeededGenerator(seed: 0xF00D)
        for _ in 0..<10_000 {
            var bytes = generator.bytes(count: Int.random(in: 0...120, using: &generator))
            if !bytes.isEmpty && Bool.random(using: &generator) { bytes[0] = 0x80 | (bytes[0] & 0x3F) }  // version 2
            exercise(bytes)
        }
    }

    @Test func mutatedPacketsNeverCrash() {
        var generator = RTPSeededGenerator(seed: 0xBEEF)
        for iteration in 0..<10_000 {
            exercise(mutate(Self.seeds[iteration % Self.seeds.count], using: &generator))
        }
    }

    @Test func randomExtensionBlocksNeverCrash() throws {
        var generator = RTPSeededGenerator(seed: 42)
        for _ in 0..<10_000 {
            let profile: UInt16 = Bool.random(using: &generator) ? 0xBEDE : 0x1000
            let data = generator.bytes(count: 4 * Int.random(in: 0...6, using: &generator))
            let ext = try RTPHeaderExtension(profile: profile, data: data)
            if let elements = try? ext.elements() {
                for element in elements { #expect(ext.element(id: element.id) != nil) }
            }
        }
    }
}
