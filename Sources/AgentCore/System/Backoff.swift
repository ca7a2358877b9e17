/// Exponential backoff with full jitter: attempt n waits a uniformly random time in
/// `0...min(cap, base * factor^n)`.
///
/// Full jitter spreads reconnecting clients apart when their attempts keep failing. Call `reset()`
/// after a connection has been healthy. The random source is injectable for tests: a closure, or a
/// generator passed to `next(using:)` (`ReconnectSchedule` uses that one, seeded in its tests).
/// A value type, owned by whoever schedules the retries (the agent actor, via `ReconnectSchedule`).
public struct Backoff: Sendable {
    /// The first attempt's upper bound, in seconds.
    public let base: Double
    /// Growth per attempt.
    public let factor: Double
    /// Largest upper bound, in seconds.
    public let cap: Double
    /// How many delays have been handed out since the last reset.
    public private(set) var attempt: Int = 0

    private let random: @Sendable () -> Double

    /// Creates a backoff. `random` returns a value in `0..<1` (defaults to the system generator).
    public init(base: Double = 0.5, factor: Double = 2, cap: Double = 60,
                random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }) {
        self.base = max(0, base)
        self.factor = max(1, factor)
        self.cap = max(0, cap)
        self.random = random
    }

    /// The current attempt's upper bound, before jitter.
    public var currentCeiling: Double {
        // Stop multiplying once the cap is reached (avoids overflow to infinity).
        var ceiling = base
        var n = 0
        while n < attempt && ceiling < cap {
            ceiling *= factor
            n += 1
        }
        return min(cap, ceiling)
    }

    /// The next delay in seconds, in `0...currentCeiling`; advances the attempt counter.
    public mutating func next() -> Double {
        let ceiling = currentCeiling
        attempt += 1
        let r = min(max(random(), 0), 1)
        return ceiling * r
    }

    /// The next delay in seconds, drawn from `generator` instead of the closure; advances the counter.
    public mutating func next(using generator: inout some RandomNumberGenerator) -> Double {
        let ceiling = currentCeiling
        attempt += 1
        return ceiling * Double.random(in: 0...1, using: &generator)
    }

    /// Starts again from `base`.
    public mutating func reset() {
        attempt = 0
    }
}
