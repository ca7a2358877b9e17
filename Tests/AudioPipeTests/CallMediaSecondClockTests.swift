@testable import AudioPipe
import Foundation
import Testing

/// A real loopback call (libnice, DTLS, SRTP, Opus) placed on a pool's second clock because the
/// first one is busy: it sends, receives and decodes from there, its sockets move to that clock's
/// receive context, and once it ends the second clock's thread ends too.
extension CallMediaTests {
    @Suite struct SecondClock {
        @Test func aCallOnTheSecondClockSendsAndReceivesThereAndItsThreadEndsAfterTheCall() async throws {
            let busy = MediaClockPoolTests.BusyClocks()
            busy.set(["tcall"])
            let pool = MediaClockPoolTests.pool("tcall", busy: busy, maximum: 2)
            let first = pool.clockForNewCall()
            let occupying = first.register { _, _ in }  // stands for the calls that keep the first clock busy
            defer { first.unregister(occupying) }
            var configuration = CallMediaTestSupport.configuration()
            configuration.mediaClocks = pool

            let pair = try await CallPair.connect(offerer: configuration, answerer: configuration)
            #expect(await pair.waitForAudio())
            let second = try #require(pool.allClocks.dropFirst().first)
            #expect(second.name == "tcall-2")
            #expect(second.registeredCount == 2, "both ends of the call on the second clock")
            #expect(first.registeredCount == 1, "nothing added to the busy first clock")
            #expect(await CallMediaClockReceiveTests.waitUntilMoved(pair), "the sockets moved to the second clock")
            let before = pair.answerer.statistics()
            let drains = second.receiveContext.drainCount
            #expect(await CallMediaTestSupport.wait(timeout: 10) {
                let now = pair.answerer.statistics()
                return now.packetsReceived >= before.packetsReceived + 25 && now.packetsSent >= before.packetsSent + 25
            }, "media keeps flowing both ways on the second clock")
            #expect(pair.answerer.statistics().framesDecoded > before.framesDecoded)
            #expect(pair.offerer.statistics().framesDecoded > 0)
            #expect(second.receiveContext.drainCount > drains, "read by the second clock's drain")
            #expect(MediaClockPoolTests.threadNames().contains("tcall-2"))
            #expect(pair.offererLog.failures.isEmpty && pair.answererLog.failures.isEmpty)

            pair.close()
            #expect(await pair.offererLog.wait(for: .closed, timeout: 10))
            #expect(await pair.answererLog.wait(for: .closed, timeout: 10))
            #expect(await CallMediaTestSupport.wait(timeout: 10) { second.registeredCount == 0 })
            #expect(await CallMediaTestSupport.wait(timeout: 10) { !second.hasThread }, "the extra clock's thread ended")
            #expect(!MediaClockPoolTests.threadNames().contains("tcall-2"))
            #expect(pool.runningThreads == 1, "back to the first clock alone")
        }
    }
}
