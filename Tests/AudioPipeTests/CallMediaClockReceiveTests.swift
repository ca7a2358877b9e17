@testable import AudioPipe
import Foundation
import Testing

/// Real loopback calls (libnice, DTLS, SRTP, Opus) whose sockets move to the media clock after
/// the first audio packet: audio keeps flowing from there, and hanging up many calls at once from
/// several threads while media flows tears each one down (detach between drains) without a crash
/// or a callback after close.
@Suite(.serialized) struct CallMediaClockReceiveTests {
    /// Waits until both sides of `pair` read their sockets on the media clock.
    static func waitUntilMoved(_ pair: CallPair) async -> Bool {
        for _ in 0..<500 {
            if await pair.offerer.receivesOnMediaClock(), await pair.answerer.receivesOnMediaClock() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    @Test func afterTheFirstAudioPacketTheCallReceivesOnTheMediaClock() async throws {
        let pair = try await CallPair.connect()
        defer { pair.close() }
        #expect(await pair.waitForAudio())
        #expect(await Self.waitUntilMoved(pair), "both sides moved their sockets to the media clock")
        let before = pair.answerer.statistics().packetsReceived
        let decodedBefore = pair.answerer.statistics().framesDecoded
        #expect(await CallMediaTestSupport.wait(timeout: 10) { pair.answerer.statistics().packetsReceived >= before + 25 },
                "media keeps arriving once read on the media clock")
        #expect(pair.answerer.statistics().framesDecoded > decodedBefore)
        #expect(pair.answerer.statistics().packetsDiscarded == 0)
        #expect(pair.offererLog.failures.isEmpty && pair.answererLog.failures.isEmpty)
    }

    @Test func hangingUpManyCallsAtOnceWhileMediaFlowsEndsEachCleanly() async throws {
        for round in 0..<3 {
            var pairs: [CallPair] = []
            for _ in 0..<6 { pairs.append(try await CallPair.connect()) }
            for pair in pairs {
                #expect(await pair.waitForAudio(), "round \(round)")
                #expect(await Self.waitUntilMoved(pair), "round \(round)")
            }
            let calls = pairs.flatMap { [$0.offerer, $0.answerer] }
            await withTaskGroup(of: Void.self) { group in
                for call in calls { group.addTask { call.close() } }
            }
            for pair in pairs {
                for log in [pair.offererLog, pair.answererLog] {
                    #expect(await log.wait(for: .closed, timeout: 10), "round \(round)")
                    #expect(log.failures.isEmpty, "round \(round)")
                    #expect(log.events.last == .closed)
                }
            }
        }
    }
}
