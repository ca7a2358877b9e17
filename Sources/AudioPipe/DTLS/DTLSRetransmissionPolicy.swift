/// The DTLS handshake retransmission timer (RFC 6347 §4.2.4.1): the first timeout of every flight,
/// doubled after each expiry up to a ceiling. OpenSSL gives up after 12 expiries of one handshake.
public struct DTLSRetransmissionPolicy: Sendable, Equatable {
    /// Seconds before the first retransmission of a flight.
    public var initialTimeout: Double
    /// Ceiling for the doubled timeout, in seconds.
    public var maximumTimeout: Double

    /// The shortest timeout accepted: OpenSSL treats a timer with less than 15 ms left as expired
    /// whenever it reads, so shorter timers would retransmit on every received datagram.
    public static let minimumTimeout = 0.03

    /// A policy; both values are clamped to `minimumTimeout` ... 60 s, the maximum to at least the initial.
    public init(initialTimeout: Double, maximumTimeout: Double) {
        let initial = min(max(initialTimeout, Self.minimumTimeout), 60)
        self.initialTimeout = initial
        self.maximumTimeout = min(max(maximumTimeout, initial), 60)
    }

    /// RFC 6347's recommendation and OpenSSL's default: 1 s, doubling up to 60 s.
    public static let rfc6347 = DTLSRetransmissionPolicy(initialTimeout: 1, maximumTimeout: 60)

    /// The next timer duration in microseconds, for OpenSSL's `DTLS_timer_cb` (0 = first timeout).
    func nextTimeoutMicroseconds(after previous: UInt32) -> UInt32 {
        let initial = UInt32(initialTimeout * 1_000_000)
        let maximum = UInt32(maximumTimeout * 1_000_000)
        guard previous > 0 else { return initial }
        return previous >= maximum / 2 ? maximum : previous * 2
    }
}
