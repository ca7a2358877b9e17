import FoundationEssentials
import MainLoop
import SystemSupport
import WCSSession

/// The server list on the agent actor (`[server] url` with several URLs; policy in `ServerFailover`):
/// a server that looks dead moves the session to the next one at once, with a login there (or a
/// resume of the token that server issued earlier; a token is never shown to another server); while a
/// backup holds the session the primary is probed, and the session goes back to it once it has
/// answered for `failback_after` seconds and no call is up.
extension Agent {
    /// What a failed attempt says about its server.
    static func failoverFailure(_ error: SessionError) -> ServerFailover.Failure {
        switch error.kind {
        case .connect, .timeout: .unreachable
        case .unavailable, .tryLater: .busy
        case .closed: .dropped
        default: .alive
        }
    }

    /// What the loss of an established socket says about its server.
    static func failoverFailure(_ reason: DisconnectReason) -> ServerFailover.Failure {
        switch reason {
        case .pingTimeout: .unreachable
        case .connectionLost: .dropped
        case .closedByServer, .rejected, .requested: .alive
        }
    }

    /// After a failed attempt: true when the session moved to another server and the retry there is
    /// scheduled (at once, once per server in an outage; then the ordinary backoff).
    func movedAfter(_ error: SessionError) -> Bool {
        moved(Self.failoverFailure(error), why: error.message)
    }

    /// After losing an established socket: as `movedAfter(_: SessionError)`.
    func movedAfter(_ reason: DisconnectReason) -> Bool {
        moved(Self.failoverFailure(reason), why: reason.description)
    }

    private func moved(_ failure: ServerFailover.Failure, why: String) -> Bool {
        let from = failover.activeServer
        guard failover.failed(failure) else { return false }
        let to = failover.activeServer
        Log.notice("agent", "server \(from) looks dead (\(why)); the session moves to \(to)")
        publishEvent(.state(AgentPhase.waitingToRetry.rawValue, reason: "failover from \(from) to \(to)"))
        guard immediateMoves < failover.servers.count else { return false }  // every server failed: back off
        immediateMoves += 1
        scheduleRetry(after: .localLoss, atOnce: true)
        return true
    }

    // MARK: - Back to the primary

    /// Starts probing the primary when a backup holds the session (no-op otherwise or when running).
    func startPrimaryProbes() {
        guard failover.onBackup, failover.failbackAfter > 0, primaryProbeTask == nil else { return }
        Log.info("agent", "on backup server \(failover.activeServer); probing the primary \(failover.servers[0]) every "
                 + "\(failover.probeInterval) s, back after \(failover.failbackAfter) s of answers with no call up")
        primaryProbeTask = Task { [weak self] in
            while !Task.isCancelled {
                guard let interval = await self?.failover.probeInterval else { return }
                try? await Task.sleep(for: .seconds(interval))
                guard !Task.isCancelled, let self, await self.probePrimary() else { return }
            }
        }
    }

    /// One probe of the primary; false ends the probing (no longer on a backup, or not online).
    private func probePrimary() async -> Bool {
        guard failover.onBackup, failover.failbackAfter > 0, phase == .online else {
            primaryProbeTask = nil
            return false
        }
        let primary = failover.servers[0]
        let answered = await ServerProbe.answers(url: primary, like: session.configuration)
        let now = MonotonicTime.now()
        failover.primaryProbe(answered: answered, at: now)
        guard phase == .online, failover.onBackup else {
            primaryProbeTask = nil
            return false
        }
        let callsUp = !(await calls()).isEmpty
        guard failover.shouldFailBack(at: now, callsUp: callsUp), phase == .online else {
            if callsUp, failover.primaryAnsweringSince.map({ now - $0 >= failover.failbackAfter }) == true {
                Log.debug("agent", "the primary answers again, but a call is up: staying on \(failover.activeServer)")
            }
            return true
        }
        primaryProbeTask = nil
        await failBack()
        return false
    }

    /// Moves the session from the backup to the primary. The backup keeps its token (and, for its
    /// keep time, the detached session): should the primary fail again, the way back resumes it.
    private func failBack() async {
        let from = failover.activeServer
        failover.failBack()
        Log.notice("agent", "the primary \(failover.activeServer) answered for \(Int(failover.failbackAfter)) s and no call "
                   + "is up: the session moves back from \(from)")
        phase = .waitingToRetry
        connectedSince = nil
        await session.disconnect()
        _ = await wake(reason: "back to the primary server \(failover.activeServer)", explicit: false)
    }
}
