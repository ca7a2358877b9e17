import FoundationEssentials
import Glibc
import WCSSession

/// What the agent is doing, as `status` reports it.
public enum AgentPhase: String, Sendable {
    /// Starting up; no attempt made yet.
    case starting
    /// A login or resume is in progress.
    case connecting
    /// The session is up (see `registered`).
    case online
    /// The socket is closed on purpose; the server keeps the session. A push or `reconnect` wakes us.
    case asleep
    /// The last attempt failed; another follows after a backoff delay.
    case waitingToRetry = "waiting_to_retry"
    /// SIP registration was refused (e.g. wrong password). No automatic retry: fix the account,
    /// then `wcs-agent reconnect`.
    case registrationFailed = "registration_failed"
    /// The token was refused and no credentials are configured: nothing more can be done.
    case failed
    /// Shutting down.
    case stopping
}

/// Time formatting shared by status, events and records.
enum AgentClock {
    static func iso(_ date: Date) -> String {
        ISO8601Time.string(date)
    }

    /// Now on the wall clock (CLOCK_REALTIME) in µs since the Unix epoch: the `resumed` event's
    /// `time_us`, which a bench compares with a push's send time taken on the same clock.
    static func microsecondsSinceEpoch() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1000
    }
}
