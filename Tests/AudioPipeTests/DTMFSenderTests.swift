@testable import AudioPipe
import Testing

@Suite struct DTMFSenderTests {
    /// (event, marker, end, duration, timestampOffset) per packet, `nil` for an empty tick.
    private func summary(_ ticks: [[DTMFPacket]]) -> [(UInt8, Bool, Bool, UInt16, UInt32)?] {
        ticks.map { packets in
            #expect(packets.count <= 1)
            return packets.first.map { ($0.event.event, $0.marker, $0.event.end, $0.event.duration, $0.timestampOffset) }
        }
    }

    private func expectEqual(_ actual: [(UInt8, Bool, Bool, UInt16, UInt32)?], _ expected: [(UInt8, Bool, Bool, UInt16, UInt32)?]) {
        #expect(actual.count == expected.count)
        for (index, (a, e)) in zip(actual, expected).enumerated() {
            #expect(a.map { "\($0)" } == e.map { "\($0)" }, "tick \(index)")
        }
    }

    @Test func oneDigitAtDefaults() throws {
        let ticks = try DTMFSender.schedule("1")
        expectEqual(summary(ticks), [
            (1, true, false, 160, 0), (1, false, false, 320, 0), (1, false, false, 480, 0), (1, false, false, 640, 0),
            (1, false, true, 800, 0), (1, false, true, 800, 0), (1, false, true, 800, 0),
        ])
        for packet in ticks.flatMap({ $0 }) {
            #expect(packet.payload == packet.event.encoded)
            #expect(packet.event.volume == 10)
        }
    }

    @Test func digitStringKeepsTheGap() throws {
        let ticks = try DTMFSender.schedule("12#")
        let starts = ticks.indices.filter { ticks[$0].first?.marker == true }
        #expect(starts == [0, 9, 18])
        // 100 ms tone + 70 ms gap = 170 ms, rounded up to whole 20 ms ticks.
        for (first, second) in zip(starts, starts.dropFirst()) { #expect((second - first) * 20 - 100 >= 70) }
        #expect(ticks[7].isEmpty && ticks[8].isEmpty)
        #expect(ticks[9].first?.timestampOffset == 1440)
        #expect(ticks[18].first?.timestampOffset == 2880)
        #expect(ticks.count == 25)
        #expect(ticks.flatMap { $0 }.filter(\.marker).map(\.event.digit) == ["1", "2", "#"])
        // Every event has exactly three end packets, all with the final duration.
        for start in starts {
            let ends = ticks[start..<start + 7].compactMap(\.first).filter(\.event.end)
            #expect(ends.count == 3 && ends.allSatisfy { $0.event.duration == 800 })
            #expect(Set(ticks[start..<start + 7].compactMap(\.first?.timestampOffset)).count == 1)
        }
    }

    @Test func negotiatedClockRateScalesDurationsAndTimestamps() throws {
        let ticks = try DTMFSender.schedule("99", configuration: .init(clockRate: 48_000))
        #expect(ticks[0].first?.event.duration == 960)
        #expect(ticks[4].first?.event.duration == 4800)
        #expect(ticks[9].first?.timestampOffset == UInt32(9 * 960))
    }

    @Test func toneThatIsNotAWholeNumberOfTicks() throws {
        let ticks = try DTMFSender.schedule("A", configuration: .init(toneDuration: 90, interDigitGap: 40, volume: 20))
        expectEqual(summary(ticks), [
            (12, true, false, 160, 0), (12, false, false, 320, 0), (12, false, false, 480, 0), (12, false, false, 640, 0),
            (12, false, true, 720, 0), (12, false, true, 720, 0), (12, false, true, 720, 0),
        ])
        #expect(ticks[0].first?.event.volume == 20)
    }

    @Test func veryShortToneStartsAndEndsInOnePacketAndGapsNeverOverlapEndPackets() throws {
        let ticks = try DTMFSender.schedule("12", configuration: .init(toneDuration: 20, interDigitGap: 0))
        expectEqual(summary(ticks), [
            (1, true, true, 160, 0), (1, false, true, 160, 0), (1, false, true, 160, 0),
            (2, true, true, 160, 480), (2, false, true, 160, 480), (2, false, true, 160, 480),
        ])
    }

    @Test func stateMachineCountsTicksFromTheFirstCall() throws {
        var sender = try DTMFSender()
        #expect(sender.isIdle)
        for _ in 0..<3 { #expect(sender.nextTick().isEmpty) }
        try sender.enqueue("5")
        #expect(!sender.isIdle && sender.pendingDigits == 1)
        let first = sender.nextTick()
        #expect(first.first?.marker == true && first.first?.timestampOffset == 480)
        for _ in 0..<6 { #expect(sender.nextTick().count == 1) }
        // The end packets are done; a digit queued now waits for the gap.
        try sender.enqueue("6")
        #expect(sender.nextTick().isEmpty)
        #expect(sender.nextTick().isEmpty)
        let next = sender.nextTick()
        #expect(next.first?.event.digit == "6" && next.first?.marker == true && next.first?.timestampOffset == UInt32((3 + 9) * 160))
    }

    @Test func invalidDigitsQueueNothingAndPendingDigitsCanBeCancelled() throws {
        var sender = try DTMFSender()
        #expect(throws: DTMFError.invalidDigit("x")) { try sender.enqueue("12x3") }
        #expect(sender.pendingDigits == 0 && sender.isIdle)
        try sender.enqueue("123")
        _ = sender.nextTick()
        #expect(sender.pendingDigits == 2)
        sender.cancelPending()
        var packets = 0
        while !sender.isIdle { packets += sender.nextTick().count }
        #expect(packets == 6)
        #expect(try DTMFSender.schedule("").isEmpty)
    }

    @Test func unusableConfigurationsAreRefused() {
        let bad: [DTMFSender.Configuration] = [
            .init(clockRate: 0), .init(packetInterval: 0), .init(clockRate: 44_100, packetInterval: 15),
            .init(toneDuration: 0), .init(interDigitGap: -1), .init(toneDuration: 10_000),
        ]
        for configuration in bad {
            #expect(throws: DTMFError.self) { try DTMFSender(configuration) }
        }
        #expect(throws: DTMFError.volumeOutOfRange(64)) { try DTMFSender(.init(volume: 64)) }
    }
}
