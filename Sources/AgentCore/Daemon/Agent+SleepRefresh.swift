import DecimalText
import FoundationEssentials
import MainLoop
import WCSSession

/// What the agent knows about its sleep (a value on the agent actor).
struct SleepState {
    /// The agent returns to sleep whenever it is idle: `wcs-agent sleep` asked for it (until a push or
    /// `reconnect`), or `[agent] sleep = idle:N` does always.
    var requested = false
    /// When the agent last closed its socket to sleep, the last moment the server surely held the
    /// session (its keep countdown started then). Nil once the session is online again.
    var aliveUntil: Date?
    /// When the next keep-time refresh is due, and its timer.
    var refreshAt: Date?
    var refreshTask: Task<Void, Never>?
    /// The return-to-sleep timer of an online agent that wants to sleep.
    var idleTask: Task<Void, Never>?
    /// When the agent last had a call (or came online): the idle time counts from here.
    var busyAt = Date()
    /// The attempt in progress (or its retries) is a keep-time refresh: back to sleep right after it.
    var refreshing = false
    /// Keep-time refreshes since start.
    var refreshes = 0
    /// Sessions found lost while asleep, and the last loss: last known alive, found gone.
    var sessionsLost = 0
    var lastLoss: (aliveUntil: Date?, detectedAt: Date)?
}

/// Sleeping without going deaf (issue 19), on the agent actor:
/// - `wcs-agent sleep`, or `[agent] sleep = idle:N` once the agent was online N seconds without a
///   call, closes the socket; the server keeps the session and its SIP registration for
///   `[agent] session_keep` (K) seconds.
/// - While asleep, at a random moment in [0.7 K, 0.8 K] after the socket closed (`SessionKeepRefresh`),
///   the agent resumes by token, holds the socket just long enough for the server to replay ringing
///   calls (`refreshSettle`), and sleeps again: the server never drops a sleeping agent's session.
/// - A refused token at a refresh (or at a push's wake) means the server lost the session while the
///   agent slept (a restart, or a server that forgets): a fresh login follows at once, and the loss is
///   reported as `session_lost_while_asleep` (event, metric, `status`, log) with the window in which
///   calls could not reach the agent.
/// - A push or `reconnect` ends a sleep asked for by `wcs-agent sleep`; with `idle:N` the agent sleeps
///   again N seconds after its last call.
extension Agent {
    /// The `reason` of a keep-time refresh (in `state` events and the log).
    static let refreshReason = "refresh"
    /// Seconds a refresh holds the socket after the resume, for the server to replay ringing calls
    /// (they follow `getUserData` within milliseconds; a call found ringing keeps the agent awake).
    static let refreshSettle: Double = 0.5
    /// While calls are up, how often an agent that wants to sleep looks again.
    static let busyRecheck: Double = 1

    /// Whether the agent goes back to sleep when idle.
    var wantsSleep: Bool { sleeper.requested || config.sleepMode != .never }

    /// Closes the socket on purpose; the server keeps the session. Stays asleep until a push or
    /// `reconnect` (with `[agent] sleep = idle:N`: sleeps again after each wake), refreshing the
    /// session before the server's keep time runs out.
    public func sleep() async throws(AgentError) {
        sleeper.requested = true
        try await fallAsleep()
    }

    /// Goes to sleep now (the verb, or an idle online agent that wants to sleep).
    func fallAsleep() async throws(AgentError) {
        guard config.keepAlive else {
            throw AgentError("cannot sleep: keepalive is off, the server would drop the session")
        }
        if let running = attemptTask { _ = await running.value }
        guard (try? tokenStore.load(server: failover.activeServer)) != nil else {
            throw AgentError("cannot sleep: no session token yet (the agent has not logged in)")
        }
        retryTask?.cancel()
        retryTask = nil
        retryAt = nil
        sleeper.idleTask?.cancel()
        sleeper.idleTask = nil
        sleeper.refreshing = false
        phase = .asleep
        connectedSince = nil
        await session.disconnect()
        sleeper.aliveUntil = Date()
        scheduleRefresh()
        let refresh = sleeper.refreshAt.map { " (next refresh \(AgentClock.iso($0)))" } ?? ""
        Log.info("agent", "asleep; the server keeps the session until a push or `wcs-agent reconnect`\(refresh)")
        publishEvent(.state(phase.rawValue))
        notifier?.status("asleep (session kept by the server)\(refresh)")
    }

    /// Arms the keep-time refresh, counted from the moment the socket closed.
    private func scheduleRefresh() {
        sleeper.refreshTask?.cancel()
        var generator = SystemRandomNumberGenerator()
        let delay = SessionKeepRefresh(keep: config.sessionKeep).delay(using: &generator)
        sleeper.refreshAt = (sleeper.aliveUntil ?? Date()).addingTimeInterval(delay)
        sleeper.refreshTask = Task { [weak self] in
            try? await Task.sleep(for: .seconds(delay))
            guard !Task.isCancelled else { return }
            await self?.refreshNow()
        }
    }

    /// Resumes by token to keep the session; `cameOnline` puts the agent back to sleep.
    private func refreshNow() async {
        guard phase == .asleep else { return }
        sleeper.refreshTask = nil
        sleeper.refreshAt = nil
        sleeper.refreshing = true
        sleeper.refreshes += 1
        Log.info("agent", "keep-time refresh: resuming the session by token before the server's keep time "
                 + "(\(DecimalText.fixed(config.sessionKeep, decimals: 0)) s) runs out")
        _ = await wake(reason: Self.refreshReason, explicit: false)
    }

    /// Stops the refresh timer (the agent is waking anyway).
    func cancelRefresh() {
        sleeper.refreshTask?.cancel()
        sleeper.refreshTask = nil
        sleeper.refreshAt = nil
    }

    /// Stops both sleep timers (shutdown, retire).
    func stopSleepTimers() {
        cancelRefresh()
        sleeper.idleTask?.cancel()
        sleeper.idleTask = nil
    }

    /// A push or `reconnect` ends a sleep the verb asked for (the idle mode sleeps again by itself).
    func explicitWakeEndsRequestedSleep() {
        sleeper.requested = false
        sleeper.refreshing = false
    }

    /// The session is online: the sleep (if any) is over; an agent that wants to sleep arms its
    /// return: right after a refresh's settle, else after the idle time.
    func cameOnline() {
        sleeper.aliveUntil = nil
        sleeper.busyAt = Date()
        cancelRefresh()
        armReturnToSleep()
    }

    /// A reloaded `[agent] sleep`: an online agent that now wants to sleep arms its return.
    func sleepModeReloaded() {
        if phase == .online { armReturnToSleep() }
    }

    private func armReturnToSleep() {
        sleeper.idleTask?.cancel()
        sleeper.idleTask = nil
        guard wantsSleep else { return }
        let idle = sleeper.refreshing ? Self.refreshSettle : (config.sleepMode.idleSeconds ?? Self.refreshSettle)
        let delay = max(0, sleeper.busyAt.addingTimeInterval(idle).timeIntervalSinceNow)
        sleeper.idleTask = Task { [weak self] in
            try? await Task.sleep(for: .seconds(delay))
            guard !Task.isCancelled else { return }
            await self?.sleepIfIdle()
        }
    }

    /// Sleeps when online without a call for the idle time; else looks again.
    private func sleepIfIdle() async {
        sleeper.idleTask = nil
        guard phase == .online, wantsSleep, attemptTask == nil else { return }
        if !(await callManager.list().isEmpty) {
            sleeper.busyAt = Date()
            sleeper.refreshing = false  // a call came with the refresh: the idle time applies after it
            sleeper.idleTask = Task { [weak self] in
                try? await Task.sleep(for: .seconds(Self.busyRecheck))
                guard !Task.isCancelled else { return }
                await self?.sleepIfIdle()
            }
            return
        }
        let idle = sleeper.refreshing ? Self.refreshSettle : (config.sleepMode.idleSeconds ?? Self.refreshSettle)
        if sleeper.busyAt.addingTimeInterval(idle).timeIntervalSinceNow > 0.05 {
            armReturnToSleep()
            return
        }
        guard phase == .online else { return }
        do {
            try await fallAsleep()
        } catch {
            Log.warning("agent", "not going to sleep: \(error)")
        }
    }

    /// A call announced on the socket the agent was closing to sleep: the server now keeps it
    /// ringing for a client that is gone, and sends no push (it was delivered). Wake at once, so the
    /// resume replays it.
    func callAnnouncedWhileFallingAsleep(_ callId: String) {
        guard phase == .asleep else {
            if phase == .online { sleeper.busyAt = Date() }
            return
        }
        Log.notice("agent", "call \(callId) was announced as the socket closed for sleep; waking to take it")
        Task { _ = await self.wake(reason: "call \(callId) announced while falling asleep", explicit: true) }
    }

    /// The server no longer knew the session of this sleeping agent (found by `detectedBy`).
    func sessionLostWhileAsleep(detectedBy: String) {
        let now = Date()
        sleeper.sessionsLost += 1
        sleeper.lastLoss = (sleeper.aliveUntil, now)
        let since = sleeper.aliveUntil.map(AgentClock.iso)
        Log.warning("agent", "session lost while asleep: the server no longer knew it (found by \(detectedBy)); "
                    + "calls since \(since ?? "the agent fell asleep") could not reach the agent; logged in again")
        publishEvent(.sessionLostWhileAsleep(aliveUntil: since, detectedBy: detectedBy))
    }

    /// After a failed resume: the server may have rotated the token before the socket died (a token
    /// valid once is spent by presenting it). The session object kept the new one; store it, or the
    /// next resume presents a dead token and loses the session.
    func keepRotatedToken(stored: StoredToken) async {
        guard stored.server == failover.activeServer,  // a token is only ever kept for the server that issued it
              let info = await session.sessionInfo, info.token.value != stored.token,
              (try? tokenStore.load(server: stored.server))?.token == stored.token else { return }
        Log.notice("agent", "the server issued a new token before the resume failed; keeping it for the next attempt")
        save(info)
    }

    /// The `sleep` object of `status`.
    func sleepStatus() -> SleepStatus {
        let keep = SessionKeepRefresh(keep: config.sessionKeep)
        let asleepSince = phase == .asleep ? sleeper.aliveUntil : nil
        return SleepStatus(
            mode: config.sleepMode.description, requested: wantsSleep, sessionKeepSeconds: keep.keep,
            sessionKeptUntil: asleepSince.map { AgentClock.iso($0.addingTimeInterval(keep.keep)) },
            nextRefreshAt: sleeper.refreshAt.map(AgentClock.iso),
            nextRefreshInSeconds: sleeper.refreshAt.map { max(0, ($0.timeIntervalSinceNow * 10).rounded() / 10) },
            deafAtMostSeconds: keep.longestDeafWindow, refreshes: sleeper.refreshes, sessionsLost: sleeper.sessionsLost,
            lostAliveUntil: sleeper.lastLoss?.aliveUntil.map(AgentClock.iso), lostDetectedAt: sleeper.lastLoss.map { AgentClock.iso($0.detectedAt) })
    }
}
