@testable import AudioPipe
import Foundation
import Testing

/// `ConditionLock`, the audio I/O threads' mutex with waiting: a waiter wakes when another thread
/// changes the state and broadcasts; a timed wait gives up after its timeout with the body seeing
/// the state as it is; the state changes of many threads are not lost.
@Suite struct ConditionLockTests {
    @Test func aWaiterWakesWhenAnotherThreadChangesTheState() {
        let shared = ConditionLock(0)
        let done = DispatchSemaphore(value: 0)
        Thread {
            usleep(50_000)
            shared.withLock { $0 = 7 }
            shared.broadcast()
            done.signal()
        }.start()
        let seen = shared.withLock(when: { $0 == 7 }) { $0 }
        #expect(seen == 7)
        done.wait()
    }

    @Test func aTimedWaitGivesUpAfterItsTimeout() {
        let shared = ConditionLock(false)
        let start = DispatchTime.now().uptimeNanoseconds
        let met = shared.withLock(when: { $0 }, timeout: 0.1) { $0 }
        let waited = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        #expect(!met)
        #expect(waited >= 0.1, "returned after \(waited) s, before the 0.1 s timeout")
    }

    @Test func aMetConditionDoesNotWait() {
        let shared = ConditionLock(3)
        #expect(shared.withLock(when: { $0 == 3 }, timeout: 1_000) { $0 + 1 } == 4)
    }

    @Test func incrementsFromManyThreadsAreAllKept() {
        let shared = ConditionLock(0)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<1_000 { shared.withLock { $0 += 1 } }
            shared.broadcast()
        }
        #expect(shared.withLock(when: { $0 == 8_000 }, timeout: 5) { $0 } == 8_000)
    }
}
