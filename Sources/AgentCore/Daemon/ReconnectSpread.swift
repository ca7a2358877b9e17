/// The reconnect spread of a fleet (`[agent] reconnect_spread`, W seconds): after a loss the
/// server caused, an agent's first attempt waits a uniformly random time in `[0, W)`.
///
/// Why: a server restart cuts every agent of a fleet in the same instant. Without a spread they all
/// come back within a second (measured: 100 agents, 200 WebSockets and 100 SIP REGISTERs in about
/// 1 s); with it, N agents arrive at about N / W per second, like SIP phones that spread their
/// re-registrations. W = 0 turns it off, which suits a lone agent. See docs/fleet.md for how W
/// should grow with the fleet.
///
/// A pure value: the random source is passed in, so tests draw from a seeded generator. Lives in
/// `ReconnectSchedule`, on the agent actor.
public struct ReconnectSpread: Sendable, Equatable {
    /// The default W, in seconds: keeps a fleet of 100 agents (2 WebSockets each after a restart:
    /// a refused token resume, then a login) under 20 connection attempts in any one second.
    public static let defaultWindow: Double = 60

    /// Largest W accepted from the configuration, in seconds.
    public static let maximumWindow: Double = 3600

    /// W in seconds (0 = no spread).
    public let window: Double

    /// Creates a spread of `window` seconds (negative and non-finite values count as 0).
    public init(window: Double) {
        self.window = window.isFinite ? min(max(0, window), Self.maximumWindow) : 0
    }

    /// Whether a server-caused loss waits at all.
    public var isOn: Bool { window > 0 }

    /// A delay in `[0, window)`, drawn from `generator`; 0 when the spread is off.
    public func delay(using generator: inout some RandomNumberGenerator) -> Double {
        guard isOn else { return 0 }
        return Double.random(in: 0..<window, using: &generator)
    }
}
