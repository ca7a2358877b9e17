import TestSupport
@testable import AgentCore
import Testing

@Suite struct BackoffTests {
    @Test func ceilingDoublesFromHalfASecondUpToTheCap() {
        var backoff = Backoff(cap: 10, random: { 1 })
        let delays = (0..<8).map { _ in backoff.next() }
        #expect(delays == [0.5, 1, 2, 4, 8, 10, 10, 10])
        #expect(backoff.attempt == 8)
    }

    @Test func fullJitterCanBeZero() {
        var backoff = Backoff(random: { 0 })
        #expect((0..<5).map { _ in backoff.next() } == [0, 0, 0, 0, 0])
    }

    @Test func defaultRandomStaysWithinBounds() {
        var backoff = Backoff()
        for attempt in 0..<200 {
            let ceiling = backoff.currentCeiling
            let delay = backoff.next()
            #expect(delay >= 0 && delay <= ceiling, "attempt \(attempt)")
            #expect(ceiling <= 60)
        }
        #expect(backoff.currentCeiling == 60)
    }

    @Test func resetStartsOver() {
        var backoff = Backoff(random: { 0.5 })
        _ = backoff.next(); _ = backoff.next(); _ = backoff.next()
        backoff.reset()
        #expect(backoff.attempt == 0)
        #expect(backoff.next() == 0.25)
    }

    @Test func hugeAttemptCountsDoNotOverflow() {
        var backoff = Backoff(cap: 60, random: { 1 })
        for _ in 0..<5000 { _ = backoff.next() }
        #expect(backoff.next() == 60)
        #expect(Backoff(random: { 7 }).currentCeiling == 0.5)
        var clamped = Backoff(random: { 7 })
        #expect(clamped.next() == 0.5)
    }
}
