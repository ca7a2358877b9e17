@testable import AudioPipe
import Foundation
import MainLoop
import Synchronization
import Testing

/// An agent whose sockets moved to a media clock's `MediaReceiveContext` (what a call does after
/// its first audio packet): datagrams reach the target on the clock thread, libnice's signals that
/// now fire there reach the loop, STUN is still answered there and, once the sockets moved back,
/// on the loop; closing while datagrams flow never runs a callback afterwards. Real libnice agents
/// on 127.0.0.1, a real clock thread.
@Suite(.serialized) struct ICEMediaClockReceiveTests {
    /// What a `MediaReceiveTarget` got, and on which thread.
    final class TargetRecorder: Sendable {
        private let received = Mutex<[[UInt8]]>([])
        private let onLoop = Atomic<Int>(0)
        private let closed = Atomic<Bool>(false)
        private let late = Atomic<Int>(0)

        var target: MediaReceiveTarget {
            MediaReceiveTarget { [self] bytes in
                if MainLoopActor.isCurrent { onLoop.add(1, ordering: .relaxed) }
                if closed.load(ordering: .acquiring) { late.add(1, ordering: .relaxed) }
                received.withLock { $0.append(Array(bytes)) }
            }
        }

        var datagrams: [[UInt8]] { received.withLock { $0 } }
        var deliveredOnLoop: Int { onLoop.load(ordering: .relaxed) }
        /// Deliveries after `markClosed()`.
        var lateDeliveries: Int { late.load(ordering: .relaxed) }
        func markClosed() { closed.store(true, ordering: .releasing) }
    }

    /// A clock with one registration that does nothing, so it ticks (and drains) every 5 ms.
    static func tickingClock(_ name: String) -> (MediaClock, MediaClock.Registration) {
        let clock = MediaClock(name: name, periodNanoseconds: 5_000_000)
        return (clock, clock.register { _, _ in })
    }

    @MainLoopActor @Test func signalsFiredOnTheMediaClockThreadReachTheLoopAndDatagramsTheTarget() async throws {
        let (clock, ticking) = Self.tickingClock("test-ice-rx-1")
        defer { clock.unregister(ticking) }
        var pair = try await ICEAgentPair.make()
        defer { pair.close() }
        let target = TargetRecorder()
        // Before the checks: every check and answer the first agent reads is read on the clock
        // thread, so its state changes and selected pair are signalled there.
        pair.first.receiveOnMediaClock(clock.receiveContext, target: target.target)
        try await pair.connect()
        #expect(await pair.waitUntilReady())
        #expect(pair.first.session.signalsFromOffLoop.load(ordering: .relaxed) > 0,
                "libnice signalled from the media clock thread and the callbacks posted to the loop")
        #expect(pair.firstRecorder.states.first == .checking && pair.firstRecorder.states.last == .ready)
        #expect(pair.first.selectedPair != nil)

        let sent = (0..<20).map { ICETestSupport.datagram(tag: 5, index: $0) }
        for datagram in sent { pair.second.send(datagram) }
        #expect(await ICETestSupport.wait { target.datagrams.count >= sent.count })
        #expect(Set(target.datagrams) == Set(sent))
        #expect(target.deliveredOnLoop == 0, "delivered on the clock thread")
        #expect(pair.firstRecorder.datagrams.isEmpty, "nothing reached onReceive on the loop")
        #expect(clock.receiveContext.drainCount > 0)

        pair.first.receiveOnLoop()
        #expect(await ICETestSupport.wait { !pair.first.session.receivesOnMediaClock }, "moved back (posted)")
        let again = (0..<5).map { ICETestSupport.datagram(tag: 6, index: $0) }
        for datagram in again { pair.second.send(datagram) }
        #expect(await ICETestSupport.wait { pair.firstRecorder.datagrams.count >= again.count })
        #expect(Set(pair.firstRecorder.datagrams) == Set(again), "moved back: onReceive on the loop again")
        #expect(target.datagrams.count == sent.count)
    }

    /// RFC 7675 consent and peer checks keep working wherever the sockets are read: on the media
    /// clock while it ticks; not while nobody reads them (a clock without calls); on the loop again
    /// once the call leaves the clock and moves them back.
    @Test func stunIsAnsweredOnTheMediaClockAndOnTheLoopAfterMovingBack() async throws {
        let (clock, ticking) = Self.tickingClock("test-ice-rx-2")
        let (pair, firstLocal, secondLocal) = try await Self.readyPair()
        defer { Task { @MainLoopActor in pair.close() } }
        let target = TargetRecorder()
        pair.first.receiveOnMediaClock(clock.receiveContext, target: target.target)
        // The move is posted to the loop; work posted later (this `run`) runs after it.
        #expect(await MainLoopActor.run { pair.first.session.receivesOnMediaClock }, "moved")
        let port = try #require(pair.first.selectedPair?.local.port)
        let username = "\(firstLocal.ufrag):\(secondLocal.ufrag)"
        let probe = ICEStunProbe()

        let onClock = probe.sendCheck(toPort: port, username: username, password: firstLocal.pwd)
        #expect(probe.awaitSuccess(transaction: onClock, timeout: 3), "answered by libnice on the media clock thread")

        clock.unregister(ticking)  // no call left: the clock waits without a timeout and reads nothing
        // The clock decides to drain before it unlocks for the drain, and `unregister` waits for a
        // tick, not for a drain already decided: let such a last drain pass (a few periods) before
        // the check, or it may read the check (seen under load).
        try await Task.sleep(for: .milliseconds(100))
        clock.receiveContext.excludingDrain {}
        let unread = probe.sendCheck(toPort: port, username: username, password: firstLocal.pwd)
        #expect(!probe.awaitSuccess(transaction: unread, timeout: 0.5), "nobody reads the media context now")
        pair.first.receiveOnLoop()
        #expect(probe.awaitSuccess(transaction: unread, timeout: 3), "moved back: the loop reads the waiting check and answers")
    }

    /// Closing agents while their datagrams are being read on the media clock thread: once
    /// `close()` returns, no datagram reaches the target (the detach waits for the drain in
    /// progress), and nothing crashes. Eight agents at once, five rounds.
    @MainLoopActor @Test func closingManyAgentsWhileDatagramsFlowNeverDeliversAfterClose() async throws {
        let (clock, ticking) = Self.tickingClock("test-ice-rx-3")
        defer { clock.unregister(ticking) }
        for round in 0..<5 {
            var pairs: [ICEAgentPair] = []
            var targets: [TargetRecorder] = []
            for _ in 0..<8 {
                var pair = try await ICEAgentPair.make()
                try await pair.connect()
                pairs.append(pair)
                let target = TargetRecorder()
                targets.append(target)
                pair.first.receiveOnMediaClock(clock.receiveContext, target: target.target)
            }
            for pair in pairs { #expect(await pair.waitUntilReady()) }
            let sending = LoopTimer.sendRepeatedly(from: pairs.map(\.second))
            #expect(await ICETestSupport.wait { targets.allSatisfy { $0.datagrams.count >= 10 } }, "round \(round): media flows")
            for (pair, target) in zip(pairs, targets) {
                pair.first.close()
                target.markClosed()
            }
            try await Task.sleep(for: .milliseconds(50))
            sending.cancel()
            for pair in pairs { pair.second.close() }
            #expect(targets.map(\.lateDeliveries) == Array(repeating: 0, count: 8), "round \(round)")
        }
    }

    /// Two agents on 127.0.0.1, ready, with their local parameters.
    @MainLoopActor
    static func readyPair() async throws -> (ICEAgentPair, ICELocalParameters, ICELocalParameters) {
        let pair = try await ICEAgentPair.make()
        let firstLocal = try await pair.first.gather()
        let secondLocal = try await pair.second.gather()
        try pair.first.setRemote(ufrag: secondLocal.ufrag, pwd: secondLocal.pwd, candidates: secondLocal.candidates)
        try pair.second.setRemote(ufrag: firstLocal.ufrag, pwd: firstLocal.pwd, candidates: firstLocal.candidates)
        #expect(await pair.waitUntilReady())
        return (pair, firstLocal, secondLocal)
    }
}

extension LoopTimer {
    /// Every 2 ms on the loop, one datagram from each of `agents` (until cancelled).
    @MainLoopActor
    static func sendRepeatedly(from agents: [ICEAgent]) -> LoopTimer {
        let counter = Atomic<Int>(0)
        return MainLoopActor.schedule(after: 0.002, repeating: true) {
            let index = counter.add(1, ordering: .relaxed).newValue
            for agent in agents { agent.send(ICETestSupport.datagram(tag: 8, index: index & 0xFFFF)) }
        }
    }
}
