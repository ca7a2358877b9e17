/// When a sleeping agent resumes by token to keep its server session (`[agent] session_keep`, K
/// seconds): at a uniformly random moment in [0.7 K, 0.8 K] after it closed its socket.
///
/// Why: WCS keeps a detached session (and its SIP registration) for K seconds (an hour by default)
/// and then drops it; an agent asleep longer would be deaf for good. Resuming at 0.7-0.8 K leaves a
/// fifth of K for a refresh that fails to be retried before the session lapses, and the random
/// tenth of K keeps a fleet put to sleep together from refreshing together (N agents refresh at
/// about N / (0.75 K) per second, docs/fleet.md). A pure value: the random source is passed in.
public struct SessionKeepRefresh: Sendable, Equatable {
    /// WCS's default keep time of a detached session, in seconds.
    public static let defaultKeep: Double = 3600
    /// Keep times accepted from the configuration, in seconds (a week at most).
    public static let keepRange: ClosedRange<Double> = 1...604_800
    /// The share of K at which a refresh falls: [0.7, 0.8].
    public static let window: ClosedRange<Double> = 0.7...0.8

    /// K in seconds.
    public let keep: Double

    /// A schedule for a keep time of `keep` seconds (clamped into `keepRange`).
    public init(keep: Double) {
        self.keep = keep.isFinite ? min(max(keep, Self.keepRange.lowerBound), Self.keepRange.upperBound) : Self.defaultKeep
    }

    /// Seconds from closing the socket to the refresh, drawn from `generator`.
    public func delay(using generator: inout some RandomNumberGenerator) -> Double {
        keep * Double.random(in: Self.window, using: &generator)
    }

    /// The longest an agent can be deaf after its server lost the session while it slept (a restart
    /// right after a refresh is noticed at the next one): 0.8 K.
    public var longestDeafWindow: Double { keep * Self.window.upperBound }
}
