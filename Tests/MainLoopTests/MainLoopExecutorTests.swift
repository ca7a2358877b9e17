import Foundation
@testable import MainLoop
import Testing

/// A counter isolated to `MainLoopActor`: only the loop thread may touch it.
@MainLoopActor
private final class LoopCounter {
    var value = 0
    var offLoop = 0

    func bump() {
        if !MainLoop.shared.isCurrentThread { offLoop += 1 }
        value += 1
    }
}

/// An actor whose executor is a private (stoppable) loop.
private actor LoopBoundActor {
    let loop: MainLoop
    private(set) var steps: [Int] = []

    init(loop: MainLoop) { self.loop = loop }

    nonisolated var unownedExecutor: UnownedSerialExecutor { loop.asUnownedSerialExecutor() }

    func record(_ step: Int) -> Bool {
        steps.append(step)
        return loop.isCurrentThread
    }
}

@Suite struct MainLoopExecutorTests {
    @Test func globalActorCodeRunsOnTheSharedLoopThread() async {
        let counter = LoopCounter()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask { for _ in 0..<100 { await counter.bump() } }
            }
        }
        #expect(await counter.value == 800)
        #expect(await counter.offLoop == 0)
        #expect(await MainLoopActor.run { MainLoop.shared.isCurrentThread })
    }

    @Test func assumeIsolatedWorksFromLoopCallbacksOnly() async throws {
        let counter = LoopCounter()
        // A plain GLib callback (like an lws or libnice callback) enters the actor synchronously.
        let value = try await MainLoop.shared.run {
            MainLoopActor.assumeIsolated {
                counter.bump()
                return counter.value
            }
        }
        #expect(value == 1)
        #expect(!MainLoopActor.isCurrent)
        #expect(try await MainLoop.shared.run { MainLoopActor.isCurrent })
    }

    @Test func actorBoundToAPrivateLoopRunsThereInOrder() async {
        let loop = MainLoop(name: "test-exec-fifo")
        defer { loop.stop() }
        let actor = LoopBoundActor(loop: loop)
        var onLoop = true
        for step in 0..<50 { onLoop = await actor.record(step) && onLoop }
        #expect(onLoop)
        #expect(await actor.steps == Array(0..<50))
    }

    @Test func actorOnAStoppedLoopStillRunsItsJobsSerially() async {
        let loop = MainLoop(name: "test-exec-stopped")
        let actor = LoopBoundActor(loop: loop)
        _ = await actor.record(-1)
        loop.stop()
        await withTaskGroup(of: Void.self) { group in
            for step in 0..<40 {
                group.addTask { _ = await actor.record(step) }
            }
        }
        let steps = await actor.steps
        #expect(steps.count == 41)
        #expect(Set(steps) == Set(-1..<40))
    }
}
