/// Which server of `[server] url` holds (or is to hold) the session, and when to move: the failover
/// policy of a server list, as a pure value (times are passed in), owned by the agent actor.
///
/// - The session lives on one server at a time, `active`. Attempts, pushes and `reconnect` go there.
/// - A server that looks dead moves the session to the next one in the list (wrapping around) at once:
///   the socket could not be opened (refused, timed out, TLS stalled or failed, no DNS answer), the
///   pings stopped (the server went silent), or the server refused to take us (a refused upgrade,
///   1013). A socket that merely dropped is first resumed on the same server, once: a killed node then
///   refuses at once and the next attempt moves; a blip on our side resumes the same session.
/// - A token refused, a registration refused or a session up: no move (the server is alive).
/// - Back to the first server (the primary) only when the primary has answered every probe for
///   `failbackAfter` seconds in a row and no call is up: a primary that comes and goes never pulls the
///   session back (no flapping), and a call is never cut for it. 0 turns the way back off.
public struct ServerFailover: Sendable, Equatable {
    /// What went wrong on the active server, as far as the choice of server cares.
    public enum Failure: Sendable, Equatable {
        /// The server could not be reached or answered nothing (connect refused or timed out, TLS,
        /// DNS, no getUserData in time, pings stopped).
        case unreachable
        /// The server is there but would not take us now (refused upgrade, closed before the session).
        case busy
        /// An established socket dropped (RST, EOF, TCP timeout): resume there once before moving.
        case dropped
        /// Anything that says the server is alive (token or registration refused, a close frame).
        case alive
    }

    /// Every server, in priority order (the first is the primary).
    public let servers: [String]
    /// Seconds the primary must answer before the session goes back to it (0 = never).
    public var failbackAfter: Double
    /// The index in `servers` of the server that holds (or is to hold) the session.
    public private(set) var active: Int
    /// When the primary's current run of answered probes began (nil: it has not answered lately).
    public private(set) var primaryAnsweringSince: Double?
    /// A dropped socket was already given its one resume on the active server.
    private var droppedRetryUsed = false
    /// Seconds the one resume after a drop may take to connect when a backup exists: a dead node
    /// found by the TCP timeout may not refuse, and the move must come within 5 s of noticing.
    public static let resumeAfterDropConnectTimeout: Double = 4

    /// The connect timeout for the next attempt: bounded while it is the one resume after a drop and
    /// another server could take the session; `configured` otherwise.
    public func connectTimeout(configured: Double) -> Double {
        servers.count > 1 && droppedRetryUsed ? min(configured, Self.resumeAfterDropConnectTimeout) : configured
    }

    /// How many times the session moved to another server (failovers and failbacks).
    public private(set) var moves = 0

    /// `servers` must not be empty; `active` starts at `start` (the server of the kept session) or 0.
    public init(servers: [String], failbackAfter: Double, start: String? = nil) {
        precondition(!servers.isEmpty, "a server list needs a server")
        self.servers = servers
        self.failbackAfter = max(0, failbackAfter)
        self.active = start.flatMap { servers.firstIndex(of: $0) } ?? 0
    }

    /// The server that holds (or is to hold) the session.
    public var activeServer: String { servers[active] }
    /// Whether the session is on a backup.
    public var onBackup: Bool { active != 0 }

    /// After a failure on the active server: moves to the next server when it looks dead. Returns
    /// whether the session moved.
    public mutating func failed(_ failure: Failure) -> Bool {
        guard servers.count > 1 else { return false }
        switch failure {
        case .alive:
            droppedRetryUsed = false
            return false
        case .dropped where !droppedRetryUsed:
            droppedRetryUsed = true
            return false
        case .dropped, .unreachable, .busy:
            move(to: (active + 1) % servers.count)
            return true
        }
    }

    /// The session is up on the active server.
    public mutating func online() {
        droppedRetryUsed = false
    }

    /// The result of a probe of the primary at `now` (seconds on any monotonic clock).
    public mutating func primaryProbe(answered: Bool, at now: Double) {
        if !answered {
            primaryAnsweringSince = nil
        } else if primaryAnsweringSince == nil {
            primaryAnsweringSince = now
        }
    }

    /// Whether to take the session back to the primary now.
    public func shouldFailBack(at now: Double, callsUp: Bool) -> Bool {
        guard onBackup, failbackAfter > 0, !callsUp, let since = primaryAnsweringSince else { return false }
        return now - since >= failbackAfter
    }

    /// Seconds between probes of the primary while on a backup: a quarter of `failbackAfter`, within
    /// 0.5...30 s (a few probes per hold-down, at most two a minute).
    public var probeInterval: Double { min(30, max(0.5, failbackAfter / 4)) }

    /// Takes the session back to the primary.
    public mutating func failBack() {
        guard onBackup else { return }
        move(to: 0)
    }

    private mutating func move(to index: Int) {
        active = index
        droppedRetryUsed = false
        primaryAnsweringSince = nil
        moves += 1
    }
}
