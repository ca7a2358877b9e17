import TestSupport
@testable import AudioRTP
import Foundation
import Testing

@Suite struct RTPReceiverStatsTests {
    /// Feeds sequence numbers `first..<first+count` except `missing`, 20 ms apart, 960 ticks apart.
    private func feed(
        _ stats: inout RTPReceiverStats, first: Int, count: Int, missing: Set<Int> = [], start: Double = 0
    ) {
        for index in 0..<count where !missing.contains(first + index) {
            let sequence = UInt16(truncatingIfNeeded: first + index)
            stats.record(sequenceNumber: sequence, timestamp: UInt32(truncatingIfNeeded: (first + index) * 960),
                         arrival: start + Double(index) * 0.02, payloadBytes: 80)
        }
    }

    @Test func countsLossAndFractionPerInterval() throws {
        var stats = RTPReceiverStats(ssrc: 1, clockRate: 48_000, minimumSequential: 1)
        feed(&stats, first: 0, count: 100, missing: [10, 20, 30])
        #expect(stats.expectedPackets == 100 && stats.receivedPackets == 97 && stats.cumulativeLost == 3)
        #expect(stats.receivedOctets == 97 * 80)
        let firstValue = stats.makeReportBlock(now: 2)
        let first = try #require(firstValue)
        #expect(first.fractionLost == 7)  // 3 * 256 / 100 = 7.68, truncated
        #expect(first.cumulativeLost == 3 && first.extendedHighestSequence == 99 && first.ssrc == 1)
        feed(&stats, first: 100, count: 100, missing: Set(stride(from: 105, to: 200, by: 10)), start: 2)
        let secondValue = stats.makeReportBlock(now: 4)
        let second = try #require(secondValue)
        #expect(second.fractionLost == 25)  // 10 * 256 / 100 = 25.6
        #expect(second.cumulativeLost == 13 && second.extendedHighestSequence == 199)
        let quietValue = stats.makeReportBlock(now: 5)
        let quiet = try #require(quietValue)
        #expect(quiet.fractionLost == 0)
    }

    @Test func sequenceWrapIncrementsCycles() {
        var stats = RTPReceiverStats(ssrc: 1, clockRate: 48_000, minimumSequential: 1)
        feed(&stats, first: 65_530, count: 20)
        #expect(stats.sequenceCycles == 1)
        #expect(stats.extendedHighestSequence == 0x1_0000 + 13)
        #expect(stats.expectedPackets == 20 && stats.cumulativeLost == 0)
    }

    @Test func newSourceIsOnProbation() {
        var stats = RTPReceiverStats(ssrc: 1, clockRate: 48_000)
        #expect(stats.record(sequenceNumber: 100, timestamp: 0, arrival: 0) == false)
        #expect(stats.isInProbation)
        #expect(stats.makeReportBlock(now: 0) == nil)
        #expect(stats.record(sequenceNumber: 101, timestamp: 960, arrival: 0.02) == true)
        #expect(!stats.isInProbation && stats.receivedPackets == 1 && stats.expectedPackets == 1)

        var jumpy = RTPReceiverStats(ssrc: 2, clockRate: 48_000)
        #expect(jumpy.record(sequenceNumber: 100, timestamp: 0, arrival: 0) == false)
        #expect(jumpy.record(sequenceNumber: 105, timestamp: 0, arrival: 0) == false)
        #expect(jumpy.record(sequenceNumber: 106, timestamp: 0, arrival: 0) == true)
    }

    @Test func largeJumpNeedsTwoSequentialPacketsToRestart() {
        var stats = RTPReceiverStats(ssrc: 1, clockRate: 48_000, minimumSequential: 1)
        feed(&stats, first: 0, count: 10)
        #expect(stats.record(sequenceNumber: 20_000, timestamp: 0, arrival: 1) == false)
        #expect(stats.receivedPackets == 10)
        #expect(stats.record(sequenceNumber: 20_001, timestamp: 960, arrival: 1.02) == true)
        #expect(stats.receivedPackets == 1 && stats.extendedHighestSequence == 20_001)
    }

    @Test func duplicatesMakeCumulativeLostNegative() {
        var stats = RTPReceiverStats(ssrc: 1, clockRate: 48_000, minimumSequential: 1)
        feed(&stats, first: 0, count: 5)
        stats.record(sequenceNumber: 3, timestamp: 3 * 960, arrival: 0.2)
        #expect(stats.cumulativeLost == -1)
    }

    @Test func constantSpacingHasZeroJitter() {
        var stats = RTPReceiverStats(ssrc: 1, clockRate: 48_000, minimumSequential: 1)
        feed(&stats, first: 0, count: 200)
        #expect(stats.jitter < 1e-6 && stats.jitterMilliseconds < 1e-6)
    }

    @Test func alternatingFiveMillisecondOffsetsConvergeToTenMilliseconds() {
        // Arrivals alternate 5 ms early / 5 ms late, so |D| = 10 ms = 480 ticks at 48 kHz for
        // every pair and J(n) = 480 * (1 - (15/16)^n) after n updates.
        for (clockRate, frame) in [(48_000, 960), (8_000, 160)] {
            var stats = RTPReceiverStats(ssrc: 1, clockRate: clockRate, minimumSequential: 1)
            let count = 120
            for index in 0..<count {
                let offset = index % 2 == 0 ? 0.005 : -0.005
                stats.record(sequenceNumber: UInt16(index), timestamp: UInt32(index * frame),
                             arrival: 1 + Double(index) * 0.02 + offset)
            }
            let ticks = 0.010 * Double(clockRate)
            let expected = ticks * (1 - pow(15.0 / 16.0, Double(count - 1)))
            #expect(abs(stats.jitter - expected) < 1e-6)
            #expect(abs(stats.jitterMilliseconds - 10) < 0.01)
            #expect(stats.makeReportBlock(now: 5)?.jitter == UInt32(expected.rounded()))
        }
    }

    @Test func timestampWrapDoesNotDisturbJitter() {
        var stats = RTPReceiverStats(ssrc: 1, clockRate: 48_000, minimumSequential: 1)
        for index in 0..<50 {
            stats.record(sequenceNumber: UInt16(index), timestamp: (UInt32.max - 960 * 20) &+ UInt32(index * 960),
                         arrival: Double(index) * 0.02)
        }
        #expect(stats.jitter < 1e-6)
    }

    @Test func reportBlockCarriesLSRAndDLSR() throws {
        var stats = RTPReceiverStats(ssrc: 1, clockRate: 48_000, minimumSequential: 1)
        feed(&stats, first: 0, count: 3)
        let ntp = NTPTimestamp(seconds: 0x0000_B705, fraction: 0x2000_0000)
        stats.recordSenderReport(RTCPSenderReport(ssrc: 1, ntpTimestamp: ntp, rtpTimestamp: 0, packetCount: 0, octetCount: 0), arrival: 10)
        let blockValue = stats.makeReportBlock(now: 11.5)
        let block = try #require(blockValue)
        #expect(block.lastSenderReport == 0xB705_2000)
        #expect(block.delaySinceLastSenderReport == 0x0001_8000)
    }

    @Test func newSSRCRestartsStatistics() {
        var stats = RTPReceiverStats(ssrc: 1, clockRate: 48_000, minimumSequential: 1)
        feed(&stats, first: 0, count: 10)
        let header = RTPHeader(payloadType: 111, sequenceNumber: 500, timestamp: 0, ssrc: 2)
        #expect(stats.record(header, payloadBytes: 10, arrival: 1) == true)
        #expect(stats.ssrc == 2 && stats.receivedPackets == 1 && stats.extendedHighestSequence == 500)
    }
}

@Suite struct RTPTimingTests {
    @Test func ntpConversions() {
        let epoch = NTPTimestamp(unixTime: 0)
        #expect(epoch.seconds == 2_208_988_800 && epoch.fraction == 0)
        let half = NTPTimestamp(unixTime: 1.5)
        #expect(half.seconds == 2_208_988_801 && half.fraction == 0x8000_0000)
        #expect(NTPTimestamp(seconds: 0x0000_B710, fraction: 0x8000_0000).compact == 0xB710_8000)
        let date = Date(timeIntervalSince1970: 1_700_000_000.25)
        #expect(abs(NTPTimestamp(date: date).unixTime - 1_700_000_000.25) < 1e-6)
        // After the 2036 era rollover, seconds wrap and unixTime still decodes.
        let future = NTPTimestamp(unixTime: 2_100_000_000)
        #expect(abs(future.unixTime - 2_100_000_000) < 1e-6)
        #expect(NTPTimestamp(rawValue: half.rawValue) == half)
        #expect(NTPTimestamp(unixTime: .nan) == epoch)
        #expect(NTPTimestamp.compact(fromSeconds: 5.25) == 0x0005_4000)
        #expect(NTPTimestamp.compact(fromSeconds: -1) == 0)
    }

    @Test func ntpClockFollowsMonotonicTime() {
        let clock = NTPClock(referenceMonotonic: 100, referenceUnixTime: 1_700_000_000)
        #expect(abs(clock.timestamp(atMonotonic: 101.25).unixTime - 1_700_000_001.25) < 1e-6)
    }

    @Test func roundTripTimeFromRFC3550Example() throws {
        // RFC 3550 section 6.4.1: A = 0xb710:8000, LSR = 0xb705:2000, DLSR = 0x0005:4000 -> 6.125 s.
        let rtt = RoundTripTime.seconds(arrival: 0xB710_8000, lastSenderReport: 0xB705_2000, delaySinceLastSenderReport: 0x0005_4000)
        #expect(rtt == 6.125)
        let block = RTCPReportBlock(ssrc: 1, lastSenderReport: 0xB705_2000, delaySinceLastSenderReport: 0x0005_4000)
        #expect(RoundTripTime.seconds(from: block, arrival: NTPTimestamp(seconds: 0xB710, fraction: 0x8000_0000)) == 6.125)
        #expect(RoundTripTime.seconds(from: RTCPReportBlock(ssrc: 1), arrival: NTPTimestamp(rawValue: 1 << 40)) == nil)
        #expect(RoundTripTime.seconds(arrival: 10, lastSenderReport: 20, delaySinceLastSenderReport: 0) == 0)
        // Across the 16-bit seconds wrap of the compact form.
        #expect(RoundTripTime.seconds(arrival: 0x0000_8000, lastSenderReport: 0xFFFF_8000, delaySinceLastSenderReport: 0) == 1)
    }

    @Test func senderReportUsesStatsAndMeasuresRTT() throws {
        var sender = RTPSenderStats(ssrc: 42, clockRate: 48_000)
        let clock = NTPClock(referenceMonotonic: 0, referenceUnixTime: 1_700_000_000)
        #expect(sender.makeSenderReport(now: 0, clock: clock) == nil)
        for index in 0..<10 {
            sender.recordSent(payloadBytes: 100, sendTime: Double(index) * 0.02, mediaTimestamp: UInt32(1000 + index * 960))
        }
        sender.recordSent(payloadBytes: 4, sendTime: 0.19, mediaTimestamp: nil)  // a telephone event
        let reportValue = sender.makeSenderReport(now: 0.23, clock: clock)
        let report = try #require(reportValue)
        #expect(report.packetCount == 11 && report.octetCount == 1004)
        #expect(report.rtpTimestamp == UInt32(1000 + 9 * 960 + 2400))  // 50 ms after the last frame
        #expect(sender.lastSenderReportNTP == report.ntpTimestamp && sender.lastSenderReportRTPTimestamp == report.rtpTimestamp)

        // The peer holds the SR for 0.5 s and its RR arrives 0.8 s after we sent: RTT 0.3 s.
        var peer = RTPReceiverStats(ssrc: 42, clockRate: 48_000, minimumSequential: 1)
        peer.record(sequenceNumber: 1, timestamp: 0, arrival: 50)
        peer.recordSenderReport(report, arrival: 50)
        let blockValue = peer.makeReportBlock(now: 50.5)
        let block = try #require(blockValue)
        let rtt = try #require(RoundTripTime.seconds(from: block, arrival: clock.timestamp(atMonotonic: 0.23 + 0.8)))
        #expect(abs(rtt - 0.3) < 0.001)
    }

    @Test func rtcpIntervalsStayWithinTheRandomizationRange() {
        var scheduler = RTCPScheduler()
        var generator = RTPSeededGenerator(seed: 7)
        let compensation = RTCPScheduler.compensation
        #expect(!scheduler.isDue(now: 0))
        scheduler.start(now: 0, using: &generator)
        let first = scheduler.nextSendTime ?? -1
        #expect(first >= 0.5 * 2.5 / compensation && first < 1.5 * 2.5 / compensation)
        #expect(!scheduler.isDue(now: first - 0.001) && scheduler.isDue(now: first))
        var now = first
        var total = 0.0
        let rounds = 2000
        for _ in 0..<rounds {
            scheduler.didSend(now: now, packetSize: 120, weSent: true, using: &generator)
            let interval = (scheduler.nextSendTime ?? now) - now
            #expect(interval >= 0.5 * 5 / compensation && interval < 1.5 * 5 / compensation)
            total += interval
            now += interval
        }
        #expect(abs(total / Double(rounds) - 5 / compensation) < 0.1)
    }

    @Test func rtcpIntervalGrowsWhenBandwidthIsScarce() {
        var scheduler = RTCPScheduler(minimumInterval: 1, sessionBandwidth: 8_000, initialAveragePacketSize: 1000)
        // RTCP gets 50 bytes/s; two members of 1000 bytes each -> 40 s, larger than T_min.
        #expect(scheduler.deterministicInterval(weSent: true) == 40)
        scheduler.senders = 0
        scheduler.members = 8
        // Receivers share 75 %: 1000 * 8 / 37.5.
        #expect(abs(scheduler.deterministicInterval(weSent: false) - 1000 * 8 / 37.5) < 1e-9)
    }
}
