@testable import AudioJitter
import Testing

@Suite struct JitterBufferTests {
    @Test func inOrderStreamPlaysEverythingWithMinimalDelay() throws {
        var simulation = try JitterSimulation()
        simulation.add(jitterStream(count: 100))
        let outputs = simulation.run(pops: 100)
        // Each frame plays at the first pop after it arrives (5 ms later).
        #expect(outputs == (0..<100).map { .frame(jitterPayload(1000 + UInt16($0))) })
        let statistics = simulation.buffer.statistics
        #expect(statistics.targetDelayMs == 20)
        #expect(statistics.played == 100 && statistics.lost == 0 && statistics.late == 0 && statistics.concealed == 0)
        #expect(abs((statistics.currentDelayMs ?? -1) - 5) < 1e-6)
        expectAccounted(statistics)
    }

    @Test func g711StreamPlaysEverything() throws {
        var simulation = try JitterSimulation(configuration: .g711)
        simulation.add(jitterStream(count: 50, frame: 160))
        #expect(playedSequences(simulation.run(pops: 50)) == (0..<50).map { 1000 + UInt16($0) })
        #expect(simulation.buffer.statistics.lost == 0)
    }

    @Test func nothingBeforeTheFirstPacketIsSilence() throws {
        var buffer = try JitterBuffer()
        #expect(buffer.pop(now: 0) == .silence)
        #expect(buffer.statistics.silence == 1 && buffer.statistics.currentDelayMs == nil)
    }

    @Test func reorderingWithinTheWindowIsFixed() throws {
        // Every even packet arrives 21 ms late, after its successor.
        var simulation = try JitterSimulation(configuration: JitterBufferConfiguration(minimumDelay: 0.060))
        simulation.add(jitterStream(count: 100) { $0 % 2 == 0 ? 0.021 : 0 })
        let played = playedSequences(simulation.run(pops: 110))
        #expect(played == (0..<100).map { 1000 + UInt16($0) })
        let statistics = simulation.buffer.statistics
        #expect(statistics.lost == 0 && statistics.late == 0)
        expectAccounted(statistics)
    }

    @Test func missingPacketYieldsLostWithNextPayloadForFEC() throws {
        // A 40 ms floor keeps the following packet in hand when a loss is noticed.
        var simulation = try JitterSimulation(configuration: JitterBufferConfiguration(minimumDelay: 0.040))
        simulation.add(jitterStream(count: 20) { $0 == 5 ? nil : 0 })
        let outputs = simulation.run(pops: 22)
        let lostIndex = try #require(outputs.firstIndex { if case .lost = $0 { true } else { false } })
        #expect(outputs[lostIndex] == .lost(nextPayloadForFEC: jitterPayload(1006)))
        #expect(outputs[lostIndex - 1] == .frame(jitterPayload(1004)))
        #expect(outputs[lostIndex + 1] == .frame(jitterPayload(1006)))
        let statistics = simulation.buffer.statistics
        #expect(statistics.lost == 1 && statistics.concealed >= 1 && statistics.played == 19)
    }

    @Test func underrunInsideTheDelayWindowIsConcealedAndPlayoutMovesOn() throws {
        var simulation = try JitterSimulation()
        simulation.add(jitterStream(count: 20) { $0 == 5 ? nil : 0 })
        let outputs = simulation.run(pops: 21)
        // Slot 5 finds the buffer empty 5 ms into the delay window: packet 5 is lost (or far
        // behind), so the slot is concealed and packet 6 plays in its own slot; holding the
        // timeline here would mean a 20 ms jump now and another when the delay shrinks again.
        #expect(outputs[5] == .lost(nextPayloadForFEC: nil))
        #expect(outputs[6] == .frame(jitterPayload(1006)))
        let statistics = simulation.buffer.statistics
        #expect(statistics.lost == 1 && statistics.played == 19 && statistics.stretched == 0)
    }

    @Test func underrunAtTheBottomOfTheWindowHoldsTheSlot() throws {
        // Pops 1 ms after each arrival: the delay sits at the bottom of the window, where an
        // empty buffer means the packet is most likely just a little late (a slower sender clock).
        var simulation = try JitterSimulation(firstPop: 0.001)
        simulation.add(jitterStream(count: 20) { $0 == 5 ? 0.003 : 0 })
        let outputs = simulation.run(pops: 21)
        #expect(outputs[5] == .lost(nextPayloadForFEC: nil))
        #expect(outputs[6] == .frame(jitterPayload(1005)), "the late packet is played, not dropped")
        let statistics = simulation.buffer.statistics
        #expect(statistics.lost == 0 && statistics.late == 0 && statistics.stretched == 1)
    }

    @Test func withFECInTheStreamTheNextPacketIsInHandWhenALossComesDue() throws {
        var simulation = try JitterSimulation()
        simulation.buffer.nextPacketRepairsLoss = true
        simulation.add(jitterStream(count: 20) { $0 == 5 ? nil : 0 })
        let outputs = simulation.run(pops: 22)
        let lostIndex = try #require(outputs.firstIndex { if case .lost = $0 { true } else { false } })
        #expect(outputs[lostIndex] == .lost(nextPayloadForFEC: jitterPayload(1006)))
        #expect(outputs[lostIndex + 1] == .frame(jitterPayload(1006)))
        let statistics = simulation.buffer.statistics
        #expect(statistics.lost == 1 && statistics.played == 19 && statistics.stretched == 0)
    }

    @Test func duplicatesAreDroppedAndCounted() throws {
        var buffer = try JitterBuffer()
        #expect(buffer.insert(seq: 1, timestamp: 0, payload: [1], arrival: 0) == .buffered)
        #expect(buffer.pop(now: 0.001) == .frame([1]))
        #expect(buffer.insert(seq: 2, timestamp: 960, payload: [2], arrival: 0.02) == .buffered)
        #expect(buffer.insert(seq: 2, timestamp: 960, payload: [2], arrival: 0.0201) == .duplicate)  // still buffered
        #expect(buffer.insert(seq: 1, timestamp: 0, payload: [1], arrival: 0.0202) == .duplicate)  // already played
        #expect(buffer.pop(now: 0.021) == .frame([2]))
        #expect(buffer.statistics.duplicates == 2 && buffer.statistics.late == 0)
        expectAccounted(buffer.statistics)
    }

    @Test func latePacketsAreDroppedAndCounted() throws {
        var simulation = try JitterSimulation()
        // Packet 5 arrives 30 ms late (after its slot); packet 10 arrives after packet 11 played.
        simulation.add(jitterStream(count: 20) { index in
            switch index {
            case 5: 0.030
            case 10: 0.050
            default: 0
            }
        })
        // The late arrivals raise the target delay, so allow extra slots to drain the buffer.
        let outputs = simulation.run(pops: 40)
        let played = playedSequences(outputs)
        #expect(!played.contains(1005) && !played.contains(1010))
        let statistics = simulation.buffer.statistics
        #expect(statistics.late == 2 && statistics.lost == 2 && statistics.played == 18)
        expectAccounted(statistics)
    }

    @Test func dtxGapProducesNoLoss() throws {
        var simulation = try JitterSimulation()
        // Ten frames, 500 ms of DTX (sequence numbers continue, timestamps jump), ten frames.
        simulation.add(jitterStream(count: 10))
        simulation.add(jitterStream(count: 10, firstSequence: 1010, firstTimestamp: 50_000 + 35 * 960, start: 0.7))
        let outputs = simulation.run(pops: 45)  // the last pop plays the last frame
        #expect(playedSequences(outputs) == (0..<20).map { 1000 + UInt16($0) })
        let statistics = simulation.buffer.statistics
        #expect(statistics.lost == 0 && statistics.late == 0)
        #expect(statistics.silence > 20)
        // At most `concealmentLimit` slots are concealed before the gap is recognized.
        #expect(statistics.concealed <= 3)
    }

    @Test func frozenSenderClockAfterSilenceResynchronizes() throws {
        var simulation = try JitterSimulation()
        // The sender stops for 3 s but resumes with the next timestamp, as if no time passed.
        simulation.add(jitterStream(count: 10))
        simulation.add(jitterStream(count: 10, firstSequence: 1010, firstTimestamp: 50_000 + 10 * 960, start: 3.2))
        let outputs = simulation.run(pops: 180)
        #expect(playedSequences(outputs) == (0..<20).map { 1000 + UInt16($0) })
        #expect(simulation.buffer.statistics.lost == 0 && simulation.buffer.statistics.late == 0)
    }

    @Test func sequenceAndTimestampWraparound() throws {
        var simulation = try JitterSimulation()
        simulation.add(jitterStream(count: 100, firstSequence: 65_500, firstTimestamp: UInt32.max - 960 * 30))
        let played = playedSequences(simulation.run(pops: 100))
        #expect(played == (0..<100).map { 65_500 &+ UInt16($0) })
        #expect(simulation.buffer.statistics.lost == 0)
    }

    @Test func ssrcChangeResetsTheBuffer() throws {
        var simulation = try JitterSimulation()
        simulation.add(jitterStream(count: 20))
        simulation.add(jitterStream(count: 20, firstSequence: 7, firstTimestamp: 3_000_000_000, start: 0.4, ssrc: 2))
        let played = playedSequences(simulation.run(pops: 40))
        let first: [UInt16] = (0..<20).map { 1000 + UInt16($0) }
        let second: [UInt16] = (0..<20).map { 7 + UInt16($0) }
        #expect(played == first + second)
        let statistics = simulation.buffer.statistics
        #expect(statistics.resets == 1 && statistics.lost == 0)
        expectAccounted(statistics)
    }

    @Test func sequenceRestartWithoutSSRCChangeIsConfirmedByTheNextPacket() throws {
        var simulation = try JitterSimulation()
        simulation.add(jitterStream(count: 20))
        simulation.add(jitterStream(count: 20, firstSequence: 40_000, firstTimestamp: 9_999, start: 0.4))
        let played = playedSequences(simulation.run(pops: 41))
        #expect(played.prefix(20).elementsEqual((0..<20).map { 1000 + UInt16($0) }))
        #expect(played.suffix(19).elementsEqual((1..<20).map { 40_000 + UInt16($0) }))
        let statistics = simulation.buffer.statistics
        #expect(statistics.resets == 1 && statistics.late == 1)  // the unconfirmed first packet
        expectAccounted(statistics)
    }

    @Test func burstArrivingAtOnce() throws {
        var simulation = try JitterSimulation()
        // Packets 10-19 are held by the network and delivered together with packet 19.
        simulation.add(jitterStream(count: 40) { index in (10..<20).contains(index) ? Double(19 - index) * 0.02 : 0 })
        let outputs = simulation.run(pops: 80)
        let statistics = simulation.buffer.statistics
        // The burst's relative delays (up to 180 ms) raise the target at once, so the held
        // packets are played rather than dropped; the extra delay is then shed by skipping.
        #expect(statistics.lost == 0 && statistics.bufferedPackets == 0)
        #expect(statistics.played + statistics.late + statistics.skipped == 40)
        #expect(statistics.targetDelayMs > 100)
        let played = playedSequences(outputs)
        #expect(played == played.sorted())  // never out of order
        #expect(played.suffix(10).elementsEqual((30..<40).map { 1000 + UInt16($0) }))
        expectAccounted(statistics)
    }

    @Test func overflowDropsTheOldest() throws {
        var buffer = try JitterBuffer()
        for index in 0..<80 {
            #expect(buffer.insert(seq: UInt16(index), timestamp: UInt32(index * 960), payload: [UInt8(index)], arrival: 0) == .buffered)
        }
        let statistics = buffer.statistics
        #expect(statistics.overflowDropped == 30 && statistics.bufferedPackets == 50)
        #expect(abs(statistics.bufferedMs - 1000) < 1e-6)
        // 1.6 s of audio arrived at once: playout starts at the newest frame that the target
        // delay allows and the older ones are dropped as late.
        #expect(buffer.pop(now: 0.001) == .frame([79]))
        #expect(buffer.statistics.late == 49)
        expectAccounted(buffer.statistics)
    }

    @Test func resetForgetsTheStream() throws {
        var buffer = try JitterBuffer()
        buffer.insert(seq: 1, timestamp: 0, payload: [1], arrival: 0)
        buffer.reset()
        #expect(buffer.pop(now: 0.01) == .silence)
        #expect(buffer.statistics.flushed == 1 && buffer.statistics.resets == 1)
        buffer.insert(seq: 500, timestamp: 7, payload: [5], arrival: 1)
        #expect(buffer.pop(now: 1.001) == .frame([5]))
    }

    @Test func invalidConfigurationIsRejected() {
        #expect(throws: JitterBufferError.self) { try JitterBuffer(configuration: JitterBufferConfiguration(clockRate: 0)) }
        #expect(throws: JitterBufferError.self) { try JitterBuffer(configuration: JitterBufferConfiguration(minimumDelay: 0.01)) }
        #expect(throws: JitterBufferError.self) {
            try JitterBuffer(configuration: JitterBufferConfiguration(minimumDelay: 0.3, maximumDelay: 0.2))
        }
        #expect(throws: JitterBufferError.self) { try JitterBuffer(configuration: JitterBufferConfiguration(capacity: 65)) }
        #expect(throws: JitterBufferError.self) { try JitterBuffer(configuration: JitterBufferConfiguration(forgetFactor: 1)) }
        do {
            _ = try JitterBuffer(configuration: JitterBufferConfiguration(capacity: 0))
            Issue.record("capacity 0 accepted")
        } catch {
            #expect(error.description.contains("capacity"))
        }
    }
}
