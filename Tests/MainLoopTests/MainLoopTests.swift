import TestSupport
import CGLib
import Foundation
@testable import MainLoop
import Testing

@Suite struct MainLoopTests {
    @Test func postRunsOnTheLoopThreadInOrder() async {
        let loop = MainLoop(name: "test-post")
        defer { loop.stop() }
        let seen = Locked<[Int]>([])
        let offLoop = Locked(0)
        for index in 0..<1000 {
            loop.post {
                if !loop.isCurrentThread { offLoop.withValue { $0 += 1 } }
                seen.withValue { $0.append(index) }
            }
        }
        #expect(await eventually { () async -> Bool in seen.current.count == 1000 })
        #expect(seen.current == Array(0..<1000))
        #expect(offLoop.current == 0)
        #expect(!loop.isCurrentThread)
    }

    @Test func postFromTheLoopThreadIsNotRunInline() {
        let loop = MainLoop(name: "test-post-inline")
        defer { loop.stop() }
        let ran = Locked(false)
        let ranInline = loop.sync { () -> Bool in
            loop.post { ran.withValue { $0 = true } }
            return ran.current
        }
        #expect(!ranInline)
        loop.sync {} // FIFO: the posted work ran before this
        #expect(ran.current)
    }

    @Test func syncReturnsValuesAndRethrows() {
        let loop = MainLoop(name: "test-sync")
        defer { loop.stop() }
        #expect(loop.sync { 6 * 7 } == 42)
        #expect(loop.sync { loop.isCurrentThread })
        #expect(loop.sync { g_main_context_is_owner(loop.context) != 0 })
        #expect(throws: ExpectedFailure.self) {
            try loop.sync { () throws -> Int in throw ExpectedFailure() }
        }
    }

    @Test func nestedSyncOnTheLoopThreadRunsInline() {
        let loop = MainLoop(name: "test-nested")
        defer { loop.stop() }
        let value = loop.sync { loop.sync { loop.sync { 7 } } }
        #expect(value == 7)
    }

    @Test func syncFromManyThreadsAtOnce() async {
        let loop = MainLoop(name: "test-sync-threads")
        defer { loop.stop() }
        let total = Locked(0)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    for _ in 0..<200 {
                        loop.sync { total.withValue { $0 += 1 } }
                    }
                }
            }
        }
        #expect(total.current == 1600)
    }

    @Test func runAwaitsTheResultFromTheLoop() async throws {
        let loop = MainLoop(name: "test-run")
        defer { loop.stop() }
        let onLoop = try await loop.run { loop.isCurrentThread }
        #expect(onLoop)
        await #expect(throws: ExpectedFailure.self) {
            try await loop.run { () throws -> Int in throw ExpectedFailure() }
        }
    }

    @Test func threadIdentityIsStable() {
        let loop = MainLoop(name: "test-identity")
        defer { loop.stop() }
        let first = loop.sync { pthread_self() }
        let second = loop.sync { pthread_self() }
        #expect(pthread_equal(first, second) != 0)
        #expect(pthread_equal(first, pthread_self()) == 0)
        let other = MainLoop(name: "test-identity-2")
        defer { other.stop() }
        #expect(!other.sync { loop.isCurrentThread })
        #expect(other.sync { other.isCurrentThread })
    }

    @Test func oneShotTimerFiresOnceOnTheLoop() async {
        let loop = MainLoop(name: "test-timer")
        defer { loop.stop() }
        let fired = Locked(0)
        let onLoop = Locked(true)
        loop.schedule(after: 0.01) {
            if !loop.isCurrentThread { onLoop.withValue { $0 = false } }
            fired.withValue { $0 += 1 }
        }
        #expect(await eventually { () async -> Bool in fired.current == 1 })
        try? await Task.sleep(nanoseconds: 100_000_000)
        #expect(fired.current == 1)
        #expect(onLoop.current)
    }

    @Test func repeatingTimerRepeatsUntilCancelled() async {
        let loop = MainLoop(name: "test-repeat")
        defer { loop.stop() }
        let fired = Locked(0)
        let timer = loop.schedule(after: 0.005, repeating: true) { fired.withValue { $0 += 1 } }
        #expect(await eventually { () async -> Bool in fired.current >= 3 })
        let countAtCancel = loop.sync { () -> Int in
            timer.cancel()
            return fired.current
        }
        #expect(timer.isCancelled)
        try? await Task.sleep(nanoseconds: 60_000_000)
        #expect(fired.current == countAtCancel)
    }

    @Test func cancelledTimerNeverFires() async {
        let loop = MainLoop(name: "test-cancel")
        defer { loop.stop() }
        let fired = Locked(false)
        let timer = loop.schedule(after: 0.05) { fired.withValue { $0 = true } }
        timer.cancel()
        try? await Task.sleep(nanoseconds: 150_000_000)
        #expect(!fired.current)
    }

    @Test func cancelIsIdempotentAcrossThreads() async {
        let loop = MainLoop(name: "test-cancel-threads")
        defer { loop.stop() }
        let timer = loop.schedule(after: 0.02, repeating: true) {}
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask { for _ in 0..<50 { timer.cancel() } }
            }
        }
        #expect(timer.isCancelled)
    }

    @Test func timerCanCancelItselfFromItsOwnCallback() async {
        let loop = MainLoop(name: "test-self-cancel")
        defer { loop.stop() }
        let fired = Locked(0)
        let holder = Locked<LoopTimer?>(nil)
        let timer = loop.schedule(after: 0.005, repeating: true) {
            fired.withValue { $0 += 1 }
            holder.current?.cancel()
        }
        holder.withValue { $0 = timer }
        #expect(await eventually { () async -> Bool in timer.isCancelled && fired.current >= 1 })
        try? await Task.sleep(nanoseconds: 50_000_000)
        #expect(fired.current == 1)
    }

    @Test func stopRunsHandlersOnTheLoopThenDropsWork() async {
        let loop = MainLoop(name: "test-stop")
        let handlerOnLoop = Locked<Bool?>(nil)
        loop.addStopHandler { handlerOnLoop.withValue { $0 = loop.isCurrentThread } }
        loop.stop()
        #expect(handlerOnLoop.current == true)
        #expect(loop.isStopped)
        #expect(!loop.isCurrentThread)

        let ran = Locked(false)
        loop.post { ran.withValue { $0 = true } }
        await #expect(throws: MainLoopStoppedError.self) { try await loop.run { 1 } }
        #expect(loop.schedule(after: 0) {}.isCancelled)
        #expect(loop.sync { 5 } == 5) // runs on the caller once the loop is gone
        try? await Task.sleep(nanoseconds: 20_000_000)
        #expect(!ran.current)
        loop.stop() // idempotent
    }

    @Test func stopRightAfterCreationDoesNotHang() {
        for index in 0..<20 {
            MainLoop(name: "test-churn-\(index)").stop()
        }
    }

    @Test func stopOnTheLoopThreadIsIgnored() {
        let loop = MainLoop(name: "test-stop-self")
        loop.sync { loop.stop() }
        #expect(!loop.isStopped)
        #expect(loop.sync { loop.isCurrentThread })
        loop.stop()
        #expect(loop.isStopped)
    }

    @Test func sharedLoopIsUsableAndCannotBeStopped() async throws {
        #expect(MainLoop.shared.sync { MainLoop.shared.isCurrentThread })
        MainLoop.shared.stop()
        #expect(!MainLoop.shared.isStopped)
        #expect(try await MainLoop.shared.run { 3 } == 3)
    }
}
