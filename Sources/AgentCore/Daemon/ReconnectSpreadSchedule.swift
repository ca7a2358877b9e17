/// The waits of one outage, from losing the session until it is online again: the spread once,
/// backoff for everything else.
///
/// - The first attempt after a loss the server caused to an **established** session waits for the
///   spread, once per outage; not while a call is up (the call needs its signaling back now).
/// - Before this agent had a session (the process started, or a reload made a new agent), a token the
///   server refused is followed by a login after the start jitter, a random wait in
///   [0, `startJitter`) (`startJitterLimit` = 5 s, or W when the spread is shorter): the agent's own
///   start is not a fleet cut by a server restart, but a fleet that boots together should not log in
///   in the same second either (DHCP clients wait 1-10 random seconds at boot, RFC 2131 §4.4.1).
/// - Every other retry backs off with full jitter (`Backoff`: 0.5 s doubling up to `backoff_cap`), so
///   a server that keeps refusing ("try again later") never sees a tight loop.
/// - A loss on our side retries after the backoff's first step (at most 0.5 s), as before.
/// - A push or a `reconnect` command does not ask at all: `Agent.wake` cancels the wait and goes.
///
/// A pure value with its own random generator (seeded in tests), owned by the agent actor.
public struct ReconnectSchedule<Generator: RandomNumberGenerator & Sendable>: Sendable {
    /// One wait before the next attempt.
    public struct Wait: Sendable, Equatable {
        /// Seconds to wait.
        public let seconds: Double
        /// Whether this is the spread's wait (else the backoff's or the start jitter's).
        public let isSpread: Bool
        /// Whether this is the start jitter's wait.
        public var isStartJitter = false
    }

    /// The longest start jitter, in seconds: a few seconds, like a DHCP client at boot.
    public static var startJitterLimit: Double { 5 }

    /// Resumes in a row that the server closed before the session came up ("try again later")
    /// after which the token is given up and the next attempt logs in: a server that answers an
    /// unknown token with such a close would otherwise never see a login.
    public static var pushbacksBeforeLogin: Int { 3 }

    /// The configured spread.
    public private(set) var spread: ReconnectSpread
    /// The backoff for repeated failures.
    public private(set) var backoff: Backoff
    /// Whether this outage has had its spread wait (or, before the first session, its start jitter).
    public private(set) var spreadTaken = false
    /// Whether this agent has had a session (only then is a server-caused loss a fleet event).
    public private(set) var hadSession = false
    /// Resumes in a row that ended in "try again later" during this outage.
    public private(set) var pushbacks = 0
    private var generator: Generator

    /// Creates a schedule at the start of an outage.
    public init(spread: ReconnectSpread, backoff: Backoff, generator: Generator) {
        self.spread = spread
        self.backoff = backoff
        self.generator = generator
    }

    /// The start jitter's bound: `startJitterLimit`, or W when the spread is shorter (0 for a lone agent).
    public var startJitter: Double { min(Self.startJitterLimit, spread.window) }

    /// The wait before the next attempt, after `cause`; `callUp`: a call is in progress.
    public mutating func next(after cause: ReconnectCause, callUp: Bool = false) -> Wait {
        if cause == .serverBusy { pushbacks += 1 }
        if cause.isServerCaused && spread.isOn && !spreadTaken && !callUp {
            if hadSession {
                spreadTaken = true
                return Wait(seconds: spread.delay(using: &generator), isSpread: true)
            }
            if cause == .tokenRefused {
                spreadTaken = true
                return Wait(seconds: Double.random(in: 0..<startJitter, using: &generator), isSpread: false, isStartJitter: true)
            }
        }
        return Wait(seconds: backoff.next(using: &generator), isSpread: false)
    }

    /// Whether a refused token may be followed by a login in the same attempt. Not before the spread
    /// (or the start jitter) was waited for: a refused token is a restarted server, and the login (a SIP
    /// REGISTER at the PBX) is what the spread protects.
    public var logsInRightAfterRefusedToken: Bool { !spread.isOn || spreadTaken }

    /// Whether the server pushed back often enough that the token is given up (see `pushbacksBeforeLogin`).
    public var givesUpToken: Bool { pushbacks >= Self.pushbacksBeforeLogin }

    /// The session is online: the outage is over.
    public mutating func online() {
        hadSession = true
        spreadTaken = false
        pushbacks = 0
        backoff.reset()
    }

    /// A reloaded configuration: a new spread applies from the next wait; a new backoff cap starts the
    /// backoff over.
    public mutating func configure(spreadWindow: Double, backoffCap: Double) {
        spread = ReconnectSpread(window: spreadWindow)
        if backoffCap != backoff.cap { backoff = Backoff(cap: backoffCap) }
    }
}
