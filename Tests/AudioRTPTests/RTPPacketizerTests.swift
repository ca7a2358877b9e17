@testable import AudioRTP
import Testing

@Suite struct RTPPacketizerTests {
    private func parse(_ bytes: [UInt8]) throws -> RTPPacket { try RTPPacket(parsing: bytes) }

    @Test func stampsSequenceTimestampAndMarker() throws {
        var packetizer = try RTPPacketizer(payloadType: 111, clockRate: 48_000, ssrc: 0x1234_5678, initialSequenceNumber: 100, initialTimestamp: 5_000)
        let first = try parse(packetizer.packet(payload: [1], samples: 960))
        let second = try parse(packetizer.packet(payload: [2], samples: 960))
        let third = try parse(packetizer.packet(payload: [3], samples: 960, marker: true))
        #expect(first.header == RTPHeader(marker: true, payloadType: 111, sequenceNumber: 100, timestamp: 5_000, ssrc: 0x1234_5678))
        #expect(second.header == RTPHeader(marker: false, payloadType: 111, sequenceNumber: 101, timestamp: 5_960, ssrc: 0x1234_5678))
        #expect(third.header.marker && third.header.timestamp == 6_920)
        #expect(first.payload == [1] && second.payload == [2])
        #expect(packetizer.sequenceNumber == 103 && packetizer.timestamp == 7_880)
    }

    @Test func pcmuAdvancesBy160() throws {
        var packetizer = try RTPPacketizer(payloadType: 0, clockRate: 8_000, initialTimestamp: 0)
        _ = packetizer.packet(payload: Array(repeating: 0xFF, count: 160), samples: 160)
        let next = try parse(packetizer.packet(payload: Array(repeating: 0xFF, count: 160), samples: 160))
        #expect(next.header.timestamp == 160 && next.header.payloadType == 0)
    }

    @Test func sequenceAndTimestampWrap() throws {
        var packetizer = try RTPPacketizer(payloadType: 111, clockRate: 48_000, ssrc: 1, initialSequenceNumber: 65_535, initialTimestamp: UInt32.max - 959)
        let last = try parse(packetizer.packet(payload: [0], samples: 960))
        let wrapped = try parse(packetizer.packet(payload: [0], samples: 960))
        #expect(last.header.sequenceNumber == 65_535 && last.header.timestamp == UInt32.max - 959)
        #expect(wrapped.header.sequenceNumber == 0 && wrapped.header.timestamp == 0)
    }

    @Test func silenceGapSetsMarkerAndAdvancesTimestamp() throws {
        var packetizer = try RTPPacketizer(payloadType: 111, clockRate: 48_000, ssrc: 1, initialSequenceNumber: 0, initialTimestamp: 0)
        _ = packetizer.packet(payload: [0], samples: 960)
        packetizer.skip(samples: 960 * 10)
        let resumed = try parse(packetizer.packet(payload: [0], samples: 960))
        let following = try parse(packetizer.packet(payload: [0], samples: 960))
        #expect(resumed.header.marker && resumed.header.timestamp == 960 * 11 && resumed.header.sequenceNumber == 1)
        #expect(!following.header.marker)
    }

    @Test func telephoneEventsKeepTheirStartTimestamp() throws {
        var packetizer = try RTPPacketizer(payloadType: 111, clockRate: 48_000, ssrc: 9, initialSequenceNumber: 10, initialTimestamp: 48_000)
        _ = packetizer.packet(payload: [0], samples: 960)
        let start = packetizer.timestamp
        let eventPayload: [UInt8] = [5, 0x0A, 0x01, 0xE0]  // digit 5, volume 10, duration 480
        let begin = try parse(packetizer.eventPacket(payload: eventPayload, payloadType: 126, timestamp: start, marker: true))
        let update = try parse(packetizer.eventPacket(payload: eventPayload, payloadType: 126, timestamp: start, marker: false))
        #expect(begin.header == RTPHeader(marker: true, payloadType: 126, sequenceNumber: 11, timestamp: start, ssrc: 9))
        #expect(update.header.sequenceNumber == 12 && update.header.timestamp == start && !update.header.marker)
        #expect(packetizer.timestamp == start)  // the media clock is untouched
        #expect(throws: RTPError.self) {
            try packetizer.eventPacket(payload: [], payloadType: 200, timestamp: 0, marker: false)
        }
    }

    @Test func headerExtensionAndTrailerCapacity() throws {
        var packetizer = try RTPPacketizer(payloadType: 111, clockRate: 48_000, ssrc: 1, reservedTrailerCapacity: 16)
        packetizer.headerExtension = try RTPHeaderExtension(elements: [RTPHeaderExtensionElement(id: 1, data: [0x7F])])
        let bytes = packetizer.packet(payload: [1, 2, 3], samples: 960)
        #expect(bytes.capacity >= bytes.count + 16)
        let packet = try parse(bytes)
        #expect(packet.header.headerExtension?.element(id: 1) == [0x7F])
        #expect(packet.payload == [1, 2, 3])
    }

    @Test func writePacketReusesBuffer() throws {
        var packetizer = try RTPPacketizer(payloadType: 0, clockRate: 8_000, ssrc: 1, initialSequenceNumber: 0, initialTimestamp: 0)
        var buffer: [UInt8] = []
        let payload: [UInt8] = Array(repeating: 0x55, count: 160)
        for index in 0..<3 {
            payload.withUnsafeBytes { packetizer.writePacket(payload: $0, samples: 160, into: &buffer) }
            let packet = try parse(buffer)
            #expect(packet.header.sequenceNumber == UInt16(index) && packet.payload == payload)
        }
    }

    @Test func randomInitialValuesAndInvalidArguments() throws {
        var generated: Set<UInt32> = []
        for _ in 0..<8 { generated.insert(try RTPPacketizer(payloadType: 111, clockRate: 48_000).ssrc) }
        #expect(generated.count > 1)
        #expect(throws: RTPError.self) { try RTPPacketizer(payloadType: 128, clockRate: 48_000) }
        #expect(throws: RTPError.self) { try RTPPacketizer(payloadType: 0, clockRate: 0) }
    }
}

@Suite struct RTPWraparoundUnwrapperTests {
    @Test func unwrapsAcrossWrapAndReordering() {
        var sequences = RTPSequenceUnwrapper()
        #expect(sequences.unwrap(65_534) == 65_534)
        #expect(sequences.unwrap(65_535) == 65_535)
        #expect(sequences.unwrap(1) == 65_537)
        #expect(sequences.unwrap(0) == 65_536)  // reordered across the wrap
        #expect(sequences.peek(65_535) == 65_535)
        var early = RTPSequenceUnwrapper()
        #expect(early.unwrap(0) == 0)
        #expect(early.unwrap(65_535) == -1)
        var timestamps = RTPTimestampUnwrapper()
        #expect(timestamps.unwrap(UInt32.max - 959) == Int64(UInt32.max) - 959)
        #expect(timestamps.unwrap(1) == Int64(UInt32.max) + 2)
        timestamps.reset()
        #expect(timestamps.last == nil)
    }
}
