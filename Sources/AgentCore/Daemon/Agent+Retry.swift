import DecimalText
import FoundationEssentials
import MainLoop
import WCSSession

/// Invariant (a) on the agent actor: no failure that may be transient ends in a state without retry.
/// Only a definite refusal of our credentials (the registrar's AUTHENTICATION_FAIL and the like, see
/// `RegistrationRefusal`; a refused token with no credentials to log in again) stops the retries, and
/// says so in `status`, an event and the log. Everything else comes back here.
extension Agent {
    /// The shortest wait after the server asked us to try later without saying when (a close before the
    /// session: 1013 "try again later", which libwebsockets 4.1 shows as 1002; or a refused upgrade
    /// without `Retry-After`): never straight back into a server that is shedding load.
    static let busyServerFloor: Double = 1

    /// The wait before the next attempt: the schedule's wait, but never shorter than what the server
    /// asked (its `Retry-After`, plus up to 10 % jitter so that a fleet told the same number does not
    /// come back in one instant), nor than `busyServerFloor` after a "try later" without a time.
    static func honouring(_ scheduled: Double, cause: ReconnectCause, serverSaid: Double?) -> Double {
        if let serverSaid {
            return max(scheduled, serverSaid * Double.random(in: 1...1.1))
        }
        return cause == .serverBusy ? max(scheduled, busyServerFloor) : scheduled
    }

    /// A fresh login whose SIP registration failed in a way that may pass (the registrar timed out,
    /// was unreachable or busy): the unregistered session is useless (no call can reach it), so it is
    /// given up and the login repeated after the backoff, as often as it takes.
    func registrationMayPass(status: String?, info: String?) -> WakeResult {
        try? tokenStore.clear(server: failover.activeServer)
        let why = "SIP registration failed: \(status ?? "no reply from the registrar")\(info.map { " (\($0))" } ?? "")"
        lastError = why + "; may be transient, logging in again"
        Log.warning("agent", lastError!)
        publishEvent(.registrationFailed(.login(error: why)))
        let session = self.session
        Task { await session.disconnect() }
        scheduleRetry(after: .localLoss)
        return .registrationFailed
    }

    /// A registration failure the server reported on a session that was up (its periodic REGISTER was
    /// refused or timed out): registered no more, so no call reaches us. A definite refusal of our
    /// credentials stops, as at login; anything else logs in again after the backoff.
    func registrationLostWhileOnline(status: String?, info: String?) {
        guard phase == .online, config.register else { return }
        connectedSince = nil
        if RegistrationRefusal.isDefinite(status: status, info: info) {
            try? tokenStore.clear(server: failover.activeServer)
            phase = .registrationFailed
            lastError = "SIP registration failed: \(status ?? "error")\(info.map { " (\($0))" } ?? "")"
            Log.error("agent", "\(lastError!); not retrying. Fix the SIP account, then run `wcs-agent reconnect`")
            publishEvent(.state(phase.rawValue))
            notifier?.status(lastError! + "; fix the account, then wcs-agent reconnect")
            let session = self.session
            Task { await session.disconnect() }
            return
        }
        _ = registrationMayPass(status: status, info: info)
    }
}
