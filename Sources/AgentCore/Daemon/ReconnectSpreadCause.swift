import WCSSession

/// Why the agent is about to try again, as far as the reconnect spread cares: did the server cause
/// it (then every agent of a fleet may be in the same spot at the same moment) or our side?
///
/// What the agent can tell reliably decides it, not close codes alone: Debian 12's libwebsockets
/// (4.1.6) reports a received 1012 "Service restart" or 1013 "Try again later" as 1002, so any close
/// frame from the server counts as server-caused, whatever its code. A pure value, used on the agent
/// actor.
public enum ReconnectCause: String, Sendable, Equatable, CustomStringConvertible {
    /// The server closed the socket with a close frame (any code: 1001, 1012, ...) or ended the
    /// session (`fail`): a restart or a shutdown, seen by the whole fleet at once.
    case serverClosed = "server closed the connection"
    /// The server no longer knows our token: it restarted and lost every session.
    case tokenRefused = "server refused the token"
    /// The server refused the socket before the session came up ("try again later", 1013): it
    /// sheds load.
    case serverBusy = "server asked to try again later"
    /// Our side: the TCP connection dropped, the pings stopped, the socket died right after the
    /// session came up, the connect failed, or another local error. Retries at once, as always.
    case localLoss = "connection lost on our side"

    /// Whether the server caused it (then the first attempt waits for the spread).
    public var isServerCaused: Bool { self != .localLoss }

    public var description: String { rawValue }

    /// The cause of losing an established connection.
    public init(_ reason: DisconnectReason) {
        switch reason {
        case .closedByServer, .rejected: self = .serverClosed
        case .requested, .connectionLost, .pingTimeout: self = .localLoss
        }
    }

    /// The cause of a failed attempt.
    public init(failure: SessionError.Kind) {
        switch failure {
        case .rejected: self = .serverClosed
        case .tokenRejected, .loginDeferred: self = .tokenRefused
        case .tryLater, .unavailable: self = .serverBusy
        default: self = .localLoss
        }
    }
}
