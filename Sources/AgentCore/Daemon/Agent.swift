import DecimalText
import FoundationEssentials
import MainLoop
import WCSSession

/// The daemon's connection lifecycle: holds one WCS session, keeps its token, resumes by token
/// after any loss (after a loss the server caused to an established session while no call is up,
/// first a random wait in the fleet's reconnect spread; then exponential backoff with jitter; never
/// two connections at once), sleeps on request or when idle (`[agent] sleep`), refreshes the kept
/// session while asleep (Agent+SleepRefresh) and wakes on `reconnect` or a push, which never wait for
/// the spread. Calls are not kept here: session call events are
/// routed to `CallManager` (the one owner of calls) and call verbs are passed to it.
/// An actor: control verbs, the session event pump and push intake all call into it.
public actor Agent {
    /// What a `reconnect` did.
    public enum WakeResult: String, Sendable {
        case alreadyOnline = "already_online"
        case resumed
        case resumedWithPendingCall = "resumed_with_pending_call"
        case loggedIn = "logged_in"
        case reloggedIn = "relogged_in"
        case registrationFailed = "registration_failed"
        case failed
    }

    // Internal (not private) where Agent+Push and Agent+SessionEvents need it; actor-isolated all the same.
    var config: AgentConfig
    let tokenStore: TokenStore
    let session: WCSSession
    private let publish: @Sendable (JSONValue) -> Void
    let notifier: SystemdNotifier?
    let callManager: CallManager

    var phase: AgentPhase = .starting
    var reconnects: ReconnectSchedule<SystemRandomNumberGenerator>
    private var retryIsSpread = false
    /// Whether the agent is waiting out the reconnect spread (not a backoff).
    var waitingForSpread: Bool { phase == .waitingToRetry && retryIsSpread }
    var attemptTask: Task<WakeResult, Never>?
    var retryTask: Task<Void, Never>?
    var retryAt: Date?
    private var pumpTask: Task<Void, Never>?
    var connectedSince: Date?
    var lastError: String?
    private var sentReady = false
    private var resumeCount = 0
    /// The server address the token file holds (see `StoredToken.address`), as last read or written.
    private var storedAddress: String?
    /// The durable per-call-id dedupe of pushes (see Agent+Push), shared by every agent of the daemon.
    let pushLedger: PushLedger
    /// Which server of the list holds the session, and when to move (see `ServerFailover`, Agent+Failover).
    var failover: ServerFailover
    /// Probes the primary while a backup holds the session (Agent+Failover).
    var primaryProbeTask: Task<Void, Never>?
    /// Retries straight on the next server in this outage (at most one per server, then the backoff).
    var immediateMoves = 0
    var announcedCallIds = PushDeduplicator()
    /// Pushes waiting for their call to be announced (see Agent+Push), by call id.
    var announcementWaiters: [String: [CheckedContinuation<Bool, Never>]] = [:]
    /// Sleep, keep-time refreshes and sessions lost while asleep (Agent+SleepRefresh).
    var sleeper = SleepState()
    /// Whether a call was up when last looked at (the start of an attempt, a lost connection): no
    /// reconnect spread then.
    var callUpHint = false

    /// Creates the agent; nothing happens until `start()`.
    /// `pushLedger`: the daemon's (nil: one in the state directory).
    public init(config: AgentConfig, tokenStore: TokenStore, notifier: SystemdNotifier? = nil,
                loop: MainLoop = .shared, pushLedger: PushLedger? = nil, publish: @escaping @Sendable (JSONValue) -> Void)
    {
        self.config = config
        self.pushLedger = pushLedger ?? PushLedger(directory: config.stateDir)
        self.tokenStore = tokenStore
        self.notifier = notifier
        self.publish = publish
        self.failover = ServerFailover(servers: config.servers, failbackAfter: config.failbackAfter,
                                       start: (try? tokenStore.load())?.server)
        self.reconnects = ReconnectSchedule(spread: ReconnectSpread(window: config.reconnectSpread),
                                            backoff: Backoff(cap: config.backoffCap), generator: SystemRandomNumberGenerator())
        var sessionConfiguration = Agent.sessionConfiguration(config)
        sessionConfiguration.url = failover.activeServer
        let session = WCSSession(configuration: sessionConfiguration, loop: loop)
        self.session = session
        self.callManager = CallManager(config: config, session: session) { event in
            publish(TimedAgentEvent(event).json)
        }
    }

    /// Maps the agent config onto the session's.
    static func sessionConfiguration(_ config: AgentConfig) -> WCSSessionConfiguration {
        var c = WCSSessionConfiguration(url: config.server)
        c.caFile = config.caFile
        c.allowInsecureTLS = config.insecureTLS
        c.connectTimeout = config.connectTimeout
        c.appKey = config.appKey
        c.keepAlive = config.keepAlive
        c.registerRequired = config.register
        c.registrationTimeout = config.registerTimeout
        c.receiveProbes = config.receiveProbes
        c.probesInterval = config.probesInterval
        c.tcpLiveness = TCPLiveness.within(seconds: config.tcpTimeout)
        c.clientVersion = "2.0"
        c.clientBrowserVersion = "wcs-agent/\(AgentCore.version)"
        c.clientOSVersion = ProcessInfo.processInfo.operatingSystemVersionString
        if let login = config.sipLogin, let password = config.sipPassword {
            c.credentials = SIPCredentials(login: login, authenticationName: config.sipAuthName,
                                           password: Secret(password), domain: config.sipDomain,
                                           outboundProxy: config.sipOutboundProxy, port: config.sipPort)
        }
        return c
    }

    /// Starts the event pump and the first login or resume (in the background).
    public func start() {
        guard pumpTask == nil else { return }
        let events = session.events
        pumpTask = Task { [weak self] in
            for await event in events {
                await self?.onSessionEvent(event)
            }
        }
        announceReadyIfTokenStored()
        Task { _ = await self.wake(reason: "start", explicit: false) }
    }

    // MARK: - systemd readiness and reload

    /// With a stored token for this server the server keeps our session: the service is ready at
    /// once, without waiting for the network (a push or the retry loop brings the socket back).
    private func announceReadyIfTokenStored() {
        guard !sentReady, let stored = try? tokenStore.load(server: failover.activeServer) else { return }
        sentReady = true
        notifier?.ready(status: "resuming session \(stored.sessionId ?? "?") by token")
    }

    /// `READY=1` (once) with `status`, or just the status line when readiness was already sent.
    private func notifyState(_ status: String) {
        if sentReady {
            notifier?.status(status)
        } else {
            sentReady = true
            notifier?.ready(status: status)
        }
    }

    /// Returns at once; the watchdog awaits it to prove the actor is not stuck.
    public func heartbeat() {}

    /// Takes a reloaded configuration whose changes apply in place (log level aside, which the
    /// logger owns): audio, answer mode and media settings for the next call, backoff cap, reconnect
    /// spread, and whatever else is read from the configuration as it goes.
    public func applyLive(_ newConfig: AgentConfig) async {
        reconnects.configure(spreadWindow: newConfig.reconnectSpread, backoffCap: newConfig.backoffCap)
        failover.failbackAfter = newConfig.failbackAfter
        config = newConfig
        await callManager.reload(config: newConfig)
        sleepModeReloaded()
    }

    /// Steps down for a replacement agent (a reload that changed the connection or the account):
    /// hangs up calls in progress, cancels retries and closes the socket. Unlike `shutdown()` it
    /// does not tell systemd the service is stopping.
    public func retire() async {
        phase = .stopping
        retryTask?.cancel()
        primaryProbeTask?.cancel()
        stopSleepTimers()
        await callManager.hangupAll()
        await session.disconnect()
        pumpTask?.cancel()
    }

    // MARK: - Verbs

    /// Brings the session back now (what a push handler runs). Idempotent: when online it does
    /// nothing; concurrent calls share one attempt. Never waits for the reconnect spread: it cancels
    /// a spread wait, and a refused token logs in within the same attempt.
    public func wake(reason: String) async -> WakeResult {
        explicitWakeEndsRequestedSleep()
        return await wake(reason: reason, explicit: true)
    }

    /// `explicit`: a push or a `reconnect` command (a call may be waiting), not the agent's own
    /// start or retry. An explicit wake that shared an attempt which ended in a spread wait goes at once.
    func wake(reason: String, explicit: Bool) async -> WakeResult {
        if explicit { callManager.expectCall(reason) }  // a push may bring a call: load libnice now
        while let running = attemptTask {
            let shared = await running.value
            guard explicit, waitingForSpread else { return shared }
        }
        if phase == .online { return .alreadyOnline }
        if phase == .stopping { return .failed }
        retryTask?.cancel()
        retryTask = nil
        retryAt = nil
        cancelRefresh()
        // The attempt clears `attemptTask` itself, before its result is out: a retry it scheduled (due at
        // once after a failover) then finds no attempt running, and a later attempt is never cleared here.
        let task = Task { () -> WakeResult in
            let result = await self.attempt(reason: reason, explicit: explicit)
            self.attemptTask = nil
            return result
        }
        attemptTask = task
        return await task.value
    }

    /// Stops: closes the socket (keepAlive keeps the server session) and cancels retries.
    public func shutdown() async {
        phase = .stopping
        retryTask?.cancel()
        primaryProbeTask?.cancel()
        stopSleepTimers()
        notifier?.stopping()
        await session.disconnect()
        pumpTask?.cancel()
    }

    /// Answers `callId` (or the oldest ringing call) with the configured audio; returns its id.
    public func answer(_ callId: String?) async throws(AgentError) -> String { try await callManager.answer(callId) }
    /// Declines a ringing call; returns its id.
    public func decline(_ callId: String?) async throws(AgentError) -> String { try await callManager.decline(callId) }
    /// Hangs up a call; returns its id.
    public func hangup(_ callId: String?) async throws(AgentError) -> String { try await callManager.hangup(callId) }
    /// Calls `number` with the configured audio; returns the new call id.
    public func call(_ number: String) async throws(AgentError) -> String {
        if phase == .asleep { _ = await wake(reason: "outgoing call") }  // a sleeping phone still dials out
        guard phase == .online else { throw AgentError("not connected to the server (\(phase.rawValue))") }
        return try await callManager.call(number)
    }

    /// Puts a talking call on hold; returns its id.
    public func hold(_ callId: String?) async throws(AgentError) -> String { try await callManager.hold(callId) }
    /// Takes a held call off hold (holding any other talking call); returns its id.
    public func resume(_ callId: String?) async throws(AgentError) -> String { try await callManager.resume(callId) }
    /// Mutes (sends silence) or unmutes a call; returns its id.
    public func setMuted(_ muted: Bool, _ callId: String?) async throws(AgentError) -> String {
        try await callManager.setMuted(muted, callId)
    }
    /// Sends DTMF digits; returns the call id, the digits and how they went (`via`).
    public func dtmf(_ digits: String, method: DTMFMethod, callId: String?) async throws(AgentError) -> JSONValue {
        .object(try await callManager.dtmf(digits, method: method, callId))
    }
    /// Blind-transfers a call to `target`; progress follows as `transfer` events. Returns the call id.
    public func transfer(to target: String, callId: String?) async throws(AgentError) -> String {
        try await callManager.transfer(to: target, callId)
    }

    /// Every call: state, direction, party, duration, mute/hold and media figures.
    public func callList() async -> JSONValue {
        .array(await calls().map(\.json))
    }

    /// Every call, oldest first, as `CallManager` (their one owner) sees them.
    public func calls() async -> [CallSummary] {
        await callManager.list()
    }

    /// The `status` verb's answer, typed (its JSON is documented in docs/control-protocol.md).
    /// Never contains the token.
    func status() async -> StatusResult {
        let stored = try? tokenStore.load(server: failover.activeServer)
        let info = await session.sessionInfo
        let sessionState = await session.state
        return StatusResult(
            state: phase.rawValue, server: failover.activeServer, sessionState: sessionState.rawValue,
            registered: phase == .online && sessionState == .registered, hasToken: stored != nil, resumes: resumeCount,
            answerMode: config.answerMode.description, logLevel: "\(config.logLevel)", calls: await calls().map(\.json),
            connectedSince: connectedSince.map(AgentClock.iso),
            tokenAgeSeconds: stored.map { Int(Date().timeIntervalSince($0.savedAt)) },
            sessionId: info?.sessionId, sipLogin: info?.sipLogin ?? config.sipLogin, lastError: lastError,
            nextRetryInSeconds: retryAt.map { max(0, ($0.timeIntervalSinceNow * 10).rounded() / 10) },
            sleep: sleepStatus())
    }

    // MARK: - Connecting

    private func attempt(reason: String, explicit: Bool) async -> WakeResult {
        // From sleep (or retrying a refresh): a refused token means the server lost the session while we slept.
        let fromSleep = sleeper.aliveUntil != nil
        callUpHint = await !callManager.list().isEmpty
        phase = .connecting
        publishEvent(.state(phase.rawValue, reason: reason))
        let server = failover.activeServer
        await session.retarget(url: server)
        await session.useConnectTimeout(failover.connectTimeout(configured: config.connectTimeout))
        notifier?.status("connecting to \(server) (\(reason))")
        let stored: StoredToken?
        do {
            stored = try tokenStore.load(server: server)  // only ever the token this server issued
        } catch {
            Log.error("agent", "\(error); logging in with credentials")
            stored = nil
        }
        if let stored {
            Log.info("agent", "resuming the server session on \(server) by token (\(reason))")
            if storedAddress == nil, let address = stored.address {
                storedAddress = address
                await session.preferServerAddress(address)  // this process has not connected yet
            }
            // A sleeping agent's refreshes are spread already; a call needs its signaling now.
            let loginIfRefused = explicit || fromSleep || callUpHint || reconnects.logsInRightAfterRefusedToken
            let outcome = await session.resume(token: Secret(stored.token), sessionId: stored.sessionId,
                                               loginIfRefused: loginIfRefused)
            if case .failed = outcome { await keepRotatedToken(stored: stored) }
            let result = await confirmed(handle(outcome, stored: stored, fromSleep: fromSleep, reason: reason))
            await keepServerAddress()
            return result
        }
        Log.info("agent", "logging in to \(server) (\(reason))")
        do {
            let result = try await session.login()
            let outcome = await confirmed(handleLogin(result, relogin: false))
            await keepServerAddress()
            return outcome
        } catch {
            return failed(error, retry: error.kind != .tokenRejected)
        }
    }

    /// Never online without a socket: a disconnect that came while the attempt was still running
    /// (and was ignored then) turns an "online" result into a lost connection and a retry.
    private func confirmed(_ result: WakeResult) async -> WakeResult {
        guard phase == .online, await session.state == .disconnected else { return result }
        connectedSince = nil
        lastError = "the socket closed right after the session came up"
        Log.warning("agent", "\(lastError!); resuming by token")
        scheduleRetry(after: .localLoss)
        return .failed
    }

    private func handle(_ outcome: ResumeOutcome, stored: StoredToken, fromSleep: Bool, reason: String) -> WakeResult {
        switch outcome {
        case .resumed(let info):
            if info.token.value != stored.token { save(info) }  // rotated by the server: same session, calls kept
            online(info, event: .resumed(sessionId: info.sessionId, pendingCalls: nil,
                                         timeMicroseconds: AgentClock.microsecondsSinceEpoch()))
            return .resumed
        case .resumedWithPendingCall(let info, let pending):
            if info.token.value != stored.token { save(info) }
            online(info, event: .resumed(sessionId: info.sessionId, pendingCalls: pending.map(\.callId),
                                         timeMicroseconds: AgentClock.microsecondsSinceEpoch()))
            return .resumedWithPendingCall
        case .reloggedIn(let result, let why):
            Log.notice("agent", "token no longer valid (\(why)); logged in again with a new session")
            if fromSleep { sessionLostWhileAsleep(detectedBy: reason) }
            loseCalls("the server session was lost (\(why))")
            return handleLogin(result, relogin: true)
        case .failed(let error) where error.kind == .loginDeferred:
            // The server restarted: log in, but only after the spread (see ReconnectSchedule).
            try? tokenStore.clear(server: failover.activeServer)
            loseCalls("the server session was lost (token refused)")
            lastError = "the server refused the session token (\(error.message))"
            Log.notice("agent", "\(lastError!); logging in after the \(reconnects.hadSession ? "reconnect spread" : "start jitter")")
            scheduleRetry(after: .tokenRefused)
            return .failed
        case .failed(let error):
            if error.kind == .tokenRejected {
                try? tokenStore.clear(server: failover.activeServer)
                loseCalls("the server session was lost (token refused)")
            }
            let result = failed(error, retry: error.kind != .tokenRejected)
            if error.kind == .tryLater { giveUpTokenAfterPushbacks() }
            return result
        }
    }

    private func handleLogin(_ result: LoginResult, relogin: Bool) -> WakeResult {
        switch result {
        case .registered(let info), .established(let info):
            save(info)
            online(info, event: relogin ? .reloggedIn(sessionId: info.sessionId) : .loggedIn(sessionId: info.sessionId))
            return relogin ? .reloggedIn : .loggedIn
        case .registrationFailed(_, let status, let info) where !RegistrationRefusal.isDefinite(status: status, info: info):
            return registrationMayPass(status: status, info: info)
        case .registrationFailed(_, let status, let info):
            // The registrar refused our credentials: retrying would only hammer the PBX. Wait for the operator.
            try? tokenStore.clear(server: failover.activeServer)
            phase = .registrationFailed
            lastError = "SIP registration failed: \(status ?? "error")\(info.map { " (\($0))" } ?? "")"
            Log.error("agent", "\(lastError!); not retrying. Fix the SIP account, then run `wcs-agent reconnect`")
            publishEvent(.registrationFailed(.login(error: lastError!)))
            notifyState(lastError! + "; fix the account, then wcs-agent reconnect")
            Task { await session.disconnect() }
            return .registrationFailed
        }
    }

    /// Once online: writes the server's address to the token file when it is not what the file holds
    /// (the first connection, or the session moved to another node). After the outcome's events.
    private func keepServerAddress() async {
        guard phase == .online, let address = await session.serverAddress, address != storedAddress,
              var stored = try? tokenStore.load(server: failover.activeServer) else { return }
        stored.address = address
        do {
            try tokenStore.save(stored)
            storedAddress = address
        } catch {
            Log.warning("agent", "cannot store the server address with the token: \(error)")
        }
    }

    func save(_ info: SessionInfo) {
        do {
            try tokenStore.save(StoredToken(server: failover.activeServer, token: info.token.value,
                                            sessionId: info.sessionId, savedAt: Date(), address: storedAddress))
        } catch {
            // The session works; only a restart would lose it. Say so loudly.
            Log.error("agent", "cannot store the session token: \(error)")
            lastError = "cannot store the session token: \(error)"
        }
    }

    private func online(_ info: SessionInfo, event: AgentEvent) {
        if case .resumed = event { resumeCount += 1 }
        phase = .online
        connectedSince = Date()
        lastError = nil
        reconnects.online()
        failover.online()
        immediateMoves = 0
        startPrimaryProbes()
        publishEvent(event)
        publishEvent(.state(phase.rawValue))
        notifyState("online, session \(info.sessionId ?? "?")")
        cameOnline()
    }

    private func failed(_ error: SessionError, retry: Bool) -> WakeResult {
        lastError = error.message
        Log.warning("agent", "\(error.message)")
        guard retry else {
            phase = .failed
            Log.error("agent", "giving up: \(error.message)")
            publishEvent(.failed(error: error.message))
            notifyState("failed: \(error.message)")
            return .failed
        }
        if movedAfter(error) { return .failed }
        scheduleRetry(after: ReconnectCause(failure: error.kind), serverSaid: error.retryAfter)
        return .failed
    }

    /// Waits (spread or backoff, see `ReconnectSchedule`), then tries again unless woken before.
    /// `serverSaid`: the server's own "not before" (Retry-After), honoured over a shorter wait.
    /// `atOnce`: no wait (the session just moved to another server, see Agent+Failover).
    func scheduleRetry(after cause: ReconnectCause, serverSaid: Double? = nil, atOnce: Bool = false) {
        let wait = reconnects.next(after: cause, callUp: callUpHint)
        let delay = atOnce ? 0 : Self.honouring(wait.seconds, cause: cause, serverSaid: serverSaid)
        retryIsSpread = wait.isSpread
        phase = .waitingToRetry
        retryAt = Date().addingTimeInterval(delay)
        if wait.isSpread {
            Log.info("agent", "\(cause): first attempt in \(DecimalText.fixed(delay, decimals: 1)) s (reconnect_spread "
                     + "\(reconnects.spread.window) s; a push or `wcs-agent reconnect` goes at once)")
        } else if wait.isStartJitter {
            Log.info("agent", "\(cause) at start: logging in in \(DecimalText.fixed(delay, decimals: 1)) s (start jitter, "
                     + "at most \(DecimalText.fixed(reconnects.startJitter, decimals: 1)) s; a push or `wcs-agent reconnect` goes at once)")
        } else {
            Log.info("agent", "next attempt in \(DecimalText.fixed(delay, decimals: 1)) s"
                     + (serverSaid.map { " (the server asked for \(DecimalText.fixed($0, decimals: 0)) s)" } ?? ""))
        }
        publishEvent(.state(phase.rawValue, retryInSeconds: delay))
        notifier?.status("reconnecting in \(Int(delay.rounded())) s: \(lastError ?? "")")
        retryTask?.cancel()
        retryTask = Task { [weak self] in
            try? await Task.sleep(for: .seconds(delay))
            guard !Task.isCancelled, let self else { return }
            await self.retryNow()
        }
    }

    private func retryNow() async {
        // A retry due at once (a failover) may fire while the attempt that scheduled it is still
        // finishing: let it finish (it clears `attemptTask`), or the wake below would share its result.
        if let running = attemptTask { _ = await running.value }
        guard phase == .waitingToRetry else { return }
        retryTask = nil
        retryAt = nil
        _ = await wake(reason: "retry", explicit: false)
    }

    /// After `ReconnectSchedule.pushbacksBeforeLogin` resumes in a row that the server closed early,
    /// stop keeping the token: the next attempt logs in (a server may answer unknown tokens that way).
    private func giveUpTokenAfterPushbacks() {
        guard reconnects.givesUpToken, (try? tokenStore.load(server: failover.activeServer)) != nil else { return }
        Log.notice("agent", "the server closed \(reconnects.pushbacks) resumes in a row before the session came up; "
                   + "giving up the token, the next attempt logs in")
        try? tokenStore.clear(server: failover.activeServer)
        loseCalls("the server session was given up (the server kept closing resumes)")
    }

    /// Stamps the event with the time and hands its wire JSON to the subscribers.
    func publishEvent(_ event: AgentEvent) {
        publish(TimedAgentEvent(event).json)
    }
}

/// An error of an agent verb, with a message for the operator.
public struct AgentError: Error, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
