import WCSJSON

/// The `sleep` object of `status`: how the agent sleeps and keeps its server session while asleep.
/// Every key is always present (`null` when it does not apply).
public struct SleepStatus: Codable, Sendable, Equatable {
    /// `[agent] sleep`: `never` or `idle:SECONDS`.
    public var mode: String
    /// Whether the agent returns to sleep whenever it is idle (`wcs-agent sleep`, or the idle mode).
    public var requested: Bool
    /// `[agent] session_keep`: how long the server keeps a detached session, in seconds.
    public var sessionKeepSeconds: Double
    /// While asleep: until when the server keeps the session (the socket closed + session_keep).
    @Nullable public var sessionKeptUntil: String?
    /// While asleep: when the next keep-time refresh (a resume by token) is due.
    @Nullable public var nextRefreshAt: String?
    @Nullable public var nextRefreshInSeconds: Double?
    /// The longest the agent is deaf when the server loses its session while it sleeps (a restart right
    /// after a refresh is noticed at the next one): 0.8 x session_keep.
    public var deafAtMostSeconds: Double
    /// Keep-time refreshes since start.
    public var refreshes: Int
    /// Sessions the server had lost while the agent slept (each followed by a fresh login).
    public var sessionsLost: Int
    /// The last such loss: the session was last known alive at `lost_alive_until` and found gone at
    /// `lost_detected_at`; calls in between could not reach the agent.
    @Nullable public var lostAliveUntil: String?
    @Nullable public var lostDetectedAt: String?

    /// Creates the value.
    public init(mode: String, requested: Bool, sessionKeepSeconds: Double, sessionKeptUntil: String?, nextRefreshAt: String?,
                nextRefreshInSeconds: Double?, deafAtMostSeconds: Double, refreshes: Int, sessionsLost: Int,
                lostAliveUntil: String?, lostDetectedAt: String?) {
        self.mode = mode
        self.requested = requested
        self.sessionKeepSeconds = sessionKeepSeconds
        self.sessionKeptUntil = sessionKeptUntil
        self.nextRefreshAt = nextRefreshAt
        self.nextRefreshInSeconds = nextRefreshInSeconds
        self.deafAtMostSeconds = deafAtMostSeconds
        self.refreshes = refreshes
        self.sessionsLost = sessionsLost
        self.lostAliveUntil = lostAliveUntil
        self.lostDetectedAt = lostDetectedAt
    }

    enum CodingKeys: String, CodingKey {
        case mode, requested, refreshes
        case sessionKeepSeconds = "session_keep_seconds"
        case sessionKeptUntil = "session_kept_until"
        case nextRefreshAt = "next_refresh_at"
        case nextRefreshInSeconds = "next_refresh_in_seconds"
        case deafAtMostSeconds = "deaf_at_most_seconds"
        case sessionsLost = "sessions_lost"
        case lostAliveUntil = "lost_alive_until"
        case lostDetectedAt = "lost_detected_at"
    }
}
