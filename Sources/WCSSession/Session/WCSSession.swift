import Dispatch
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import MainLoop

/// A client session with a WCS server: one WebSocket at a time, the WCS JSON protocol, the
/// session and call state machines, ping handling and keepAlive/authToken resume.
///
/// Media-agnostic: SDP strings go in and out. Create one per server account and keep it for the
/// life of the process; `login()` and `resume(token:)` open a new socket each time (closing any
/// previous one first, so there are never two connections). Events arrive on `events` in order.
///
/// Decisions on open points of the protocol doc (see Sources/WCSSession/README.md):
/// a resume sends no SIP fields; a `fail` or a close before `getUserData` means the token is gone and a
/// full login follows; a `getUserData` with a new token is a rotation (resumed, new token) when the
/// server shows it still holds our session (`sameSessionAfterNewToken`: our registration, never the
/// inferred `sessionId` alone), else a new session and a full login; a `registered` before
/// `getUserData` counts; a socket lost before the resume returns fails it, one lost later is an ordinary
/// `.disconnected`; a resumed session whose
/// `getUserData` echoes `sipRegisterRequired: true` counts as registered (no `registered` is
/// re-sent); `setRemoteSDP` for an unknown call is cached until `notifyIncomingCall`.
public actor WCSSession {
    /// Session events, in order. Single consumer; it lives as long as the session object.
    public nonisolated let events: AsyncStream<SessionEvent>
    private let eventSink: AsyncStream<SessionEvent>.Continuation

    public private(set) var configuration: WCSSessionConfiguration
    private let loop: MainLoop

    /// Current state.
    public private(set) var state: SessionState = .disconnected
    /// The session we hold (or held, if disconnected): token, id, SIP login.
    public private(set) var sessionInfo: SessionInfo?
    /// When we last answered a server ping with a pong (the keepalive's heartbeat); nil before the first.
    public private(set) var lastPongAt: Date?
    /// The server's numeric address of the last socket that opened (nil before one did). Every
    /// later socket connects there first, resolving the URL's host name in parallel: no DNS on a
    /// wake, and a resume stays on the node that holds the session behind round-robin DNS.
    public private(set) var serverAddress: String?
    /// How long the last socket took from connect to open, in seconds (for the preferred address's grace).
    private var lastOpenSeconds: Double?

    private var connection: WebSocketConnection?
    private var generation = 0
    private var readerTask: Task<Void, Never>?
    private var proberTask: Task<Void, Never>?
    private var pingsMissing = 0
    private var handshake: CheckedContinuation<Handshake, Never>?
    private var handshakeDeadline: Task<Void, Never>?
    private var registration: RegistrationResult?
    private var registrationWaiter: CheckedContinuation<RegistrationResult?, Never>?
    private var replayedSinceHandshake: [CallInfo] = []
    private var closingOnPurpose = false
    private var operationInFlight = false
    private var operationWaiters: [CheckedContinuation<Void, Never>] = []

    private var calls: [String: CallSnapshot] = [:]
    /// `setRemoteSDP` offers for calls not announced yet (protocol doc §3.4), oldest first.
    private var pendingSDP: [(callId: String, sdp: String)] = []
    private static let pendingSDPLimit = 32

    private enum Handshake {
        case established(UserData)
        case rejected(String)
        case closedBeforeEstablished(DisconnectReason)
        case connectFailed(WebSocketError)
        case timeout
    }

    private enum RegistrationResult {
        case registered
        case failed(status: String?, info: String?)
    }

    /// Creates a session object; nothing is sent until `login()` or `resume(token:)`.
    public init(configuration: WCSSessionConfiguration, loop: MainLoop = .shared) {
        self.configuration = configuration
        self.loop = loop
        (events, eventSink) = AsyncStream.makeStream(of: SessionEvent.self, bufferingPolicy: .unbounded)
    }

    deinit {
        connection?.abort()
        readerTask?.cancel()
        proberTask?.cancel()
        eventSink.finish()
    }

    // MARK: - Login and resume

    /// A full login with the configured SIP credentials (or none when `registerRequired` is
    /// false and the server needs none). Waits for `registered` when registration is requested.
    public func login() async throws(SessionError) -> LoginResult {
        await beginOperation()
        defer { endOperation() }
        return try await performLogin()
    }

    /// Comes back to the server session of `token`. Never two sockets: any current one closes
    /// first. When the token is refused, gone or replaced by a different session, a full login
    /// follows (if credentials are configured) and `.reloggedIn` carries the new token to store.
    /// A new token for the **same** session (see `sameSessionAfterNewToken`) is a rotation: the
    /// outcome is `.resumed` with the new token in its info.
    /// Returns as soon as `getUserData` is handled (no settle wait). A socket that died by then gives
    /// `.failed(.closed)`, never `.resumed`; one that dies later is reported as `.disconnected`. Ringing
    /// calls the server replays after the outcome are still delivered as `.incomingCall(replayed: true)`.
    /// With `loginIfRefused` false a refused token gives `.failed(.loginDeferred)` instead of a login.
    /// A server close before `getUserData` other than a normal one (1000, or no code) is pushback, not
    /// a refusal: `.failed(.tryLater)`, and no login.
    public func resume(token: Secret, sessionId: String? = nil, loginIfRefused: Bool = true) async -> ResumeOutcome {
        await beginOperation()
        defer { endOperation() }
        var request = baseRequest()
        request.authToken = token
        let heldSession = sessionId ?? sessionInfo?.sessionId
        switch await open(request) {
        case .established(let user):
            if user.authToken != token {
                guard await sameSessionAfterNewToken(user, heldSession: heldSession) else {
                    Log.notice("session", "resume: the server answered with a new token but not our registration: a new session; logging in again")
                    closeSocket()
                    return await relogin(reason: "server started a new session", loginIfRefused)
                }
                Log.notice("session", "resume: the server rotated the token of session \(user.sessionId ?? heldSession ?? "?"); keeping the session")
            }
            let info = SessionInfo(token: user.authToken, sessionId: user.sessionId, sipLogin: user.sipLogin)
            sessionInfo = info
            if user.sipRegisterRequired ?? configuration.registerRequired { setState(.registered) }
            // No settle wait: the outcome says what is known now. Later events refine it: a replayed
            // ringing call arrives as `.incomingCall(replayed: true)`, a `registered` updates the state,
            // a drop arrives as `.disconnected` and the owner reconnects as after any loss.
            guard connection != nil, state == .established || state == .registered else {
                Log.warning("session", "resume: the socket closed right after getUserData")
                return .failed(SessionError(.closed, "socket closed right after the resume's getUserData"))
            }
            let pending = replayedSinceHandshake
            Log.info("session", "resumed session \(info.sessionId ?? "?") by token; \(pending.count) ringing call(s)")
            return pending.isEmpty ? .resumed(info) : .resumedWithPendingCall(info, calls: pending)
        case .rejected(let info):
            Log.notice("session", "resume refused by server (\(info))\(loginIfRefused ? "; logging in again" : "")")
            return await relogin(reason: info, loginIfRefused)
        case .closedBeforeEstablished(let reason):
            if case .closedByServer(let code, _) = reason, code != 1000, code != 1005 {
                Log.notice("session", "resume: the server closed the socket before getUserData (\(reason)); trying again later")
                return .failed(SessionError(.tryLater, "the server closed the socket before getUserData (\(reason)); trying again later"))
            }
            Log.notice("session", "resume: socket closed before getUserData (\(reason))\(loginIfRefused ? "; logging in again" : "")")
            return await relogin(reason: "closed before getUserData: \(reason)", loginIfRefused)
        case .connectFailed(let error):
            return .failed(SessionError.connectFailed(error, url: configuration.url))
        case .timeout:
            abortSocket()
            return .failed(SessionError(.timeout, "no getUserData within \(Int(configuration.connectTimeout)) s"))
        }
    }

    /// Points the session at another server (a failover between the URLs of a server list): the next
    /// `login()`/`resume(token:)` connects to `url`. Any socket closes first; what was learnt about the
    /// old server (its address, the session held there) is forgotten. Nothing happens for the same URL.
    public func retarget(url: String) {
        guard url != configuration.url else { return }
        closeSocket()
        Log.info("session", "now using server \(url)")
        configuration.url = url
        serverAddress = nil
        lastOpenSeconds = nil
        sessionInfo = nil
    }

    /// Sets the connect timeout of the next `login()`/`resume(token:)` (e.g. a shorter one for a quick
    /// look at a server that just dropped us, when a backup could take the session).
    public func useConnectTimeout(_ seconds: Double) {
        configuration.connectTimeout = seconds
    }

    /// Seconds a resume answered with a new token and no other sign of our session waits for a
    /// `registered` before it counts as a new session.
    static let registeredAfterNewTokenWait: Double = 1

    /// Whether a resume's `getUserData` that carries a different token is still our session. What the
    /// server certainly did: it answered our token with `getUserData`, not `fail`. What decides is
    /// whether it still holds our SIP registration (protocol doc §5.2: a new session made from a resume
    /// has none, since a resume carries no SIP fields):
    /// - nothing to lose (no registration asked for): ours;
    /// - `registered` arrived (before `getUserData`, or within `registeredAfterNewTokenWait`): ours;
    /// - `getUserData` echoes our SIP login, which the resume did not carry: the server took it from
    ///   our session: ours;
    /// - the same `sessionId` as held: ours (`sessionId` is inferred, so only ever a sign for, never
    ///   against: a server that omits it or changes it with the token is judged by the above).
    private func sameSessionAfterNewToken(_ user: UserData, heldSession: String?) async -> Bool {
        if let id = user.sessionId, id == heldSession { return true }
        guard configuration.registerRequired, let credentials = configuration.credentials else { return true }
        if case .registered? = registration { return true }
        if let login = user.sipLogin, login == credentials.login { return true }
        if case .registered? = await waitForRegistration(limit: Self.registeredAfterNewTokenWait) { return true }
        return false
    }

    /// Whether the open socket's path still holds: the kernel routes to the server from the socket's
    /// local address. Nil without an open socket. For network-change checks (a route lookup, no traffic).
    public func pathStillRouted() -> Bool? {
        guard let path = connection?.path else { return nil }
        return path.isStillRouted
    }

    /// The open socket's two ends, for logs; nil without an open socket.
    public func socketPath() -> SocketPath? { connection?.path }

    /// Closes the socket on purpose. With keepAlive the server keeps the session (and its SIP
    /// registration); `resume(token:)` comes back to it.
    public func disconnect() {
        closeSocket()
    }

    /// Where to connect first when no socket of this session has opened yet: the server address
    /// kept from an earlier run (with the token). Ignored once a socket opened (`serverAddress`
    /// then says where), and for a URL with a literal address. Nil forgets it; so does anything
    /// but a numeric IPv4 or IPv6 address (a host name or garbage in the token file: the URL's
    /// name is resolved as if nothing were kept, and nothing is ever looked up by that text).
    public func preferServerAddress(_ address: String?) {
        guard lastOpenSeconds == nil else { return }
        serverAddress = address.flatMap(Self.rememberable)
        if let address, serverAddress == nil {
            Log.info("session", "ignoring the kept server address \"\(address.prefix(64))\": not a numeric address")
        }
    }

    /// An address worth connecting to by number later: a numeric IPv4 or IPv6 address, not a
    /// link-local IPv6 one (its zone is gone).
    static func rememberable(_ address: String) -> String? {
        var ipv4 = in_addr()
        var ipv6 = in6_addr()
        guard inet_pton(AF_INET, address, &ipv4) == 1 || inet_pton(AF_INET6, address, &ipv6) == 1 else { return nil }
        return address.lowercased().hasPrefix("fe80:") ? nil : address
    }

    /// Seconds the remembered address may take to open before the DNS answer is tried: four times
    /// its last open time, at least half a second, at most half the connect timeout.
    private var preferredAddressGrace: Double {
        min(configuration.connectTimeout / 2, max(0.5, 4 * (lastOpenSeconds ?? 0)))
    }

    private func relogin(reason: String, _ loginIfRefused: Bool) async -> ResumeOutcome {
        guard configuration.credentials != nil || !configuration.registerRequired else {
            return .failed(SessionError(.tokenRejected, "token refused (\(reason)) and no SIP credentials to log in again"))
        }
        guard loginIfRefused else { return .failed(SessionError(.loginDeferred, "token refused (\(reason))")) }
        do {
            return .reloggedIn(try await performLogin(), reason: reason)
        } catch {
            return .failed(error)
        }
    }

    private func performLogin() async throws(SessionError) -> LoginResult {
        var request = baseRequest()
        request.sip = configuration.credentials
        request.registerRequired = configuration.registerRequired
        switch await open(request) {
        case .established(let user):
            let info = SessionInfo(token: user.authToken, sessionId: user.sessionId, sipLogin: user.sipLogin)
            sessionInfo = info
            guard configuration.registerRequired, configuration.credentials != nil else {
                Log.info("session", "logged in, session \(info.sessionId ?? "?") (no SIP registration requested)")
                return .established(info)
            }
            switch await waitForRegistration() {
            case .registered?:
                Log.info("session", "logged in and registered, session \(info.sessionId ?? "?")")
                return .registered(info)
            case .failed(let status, let info2)?:
                Log.error("session", "SIP registration failed: \(status ?? "?") \(info2 ?? "")")
                return .registrationFailed(info, status: status, info: info2)
            case nil:
                guard state == .established || state == .registered else {
                    throw SessionError(.closed, "socket closed while waiting for SIP registration")
                }
                Log.error("session", "no SIP registration reply within \(Int(configuration.registrationTimeout)) s")
                return .registrationFailed(info, status: nil, info: "no registration reply")
            }
        case .rejected(let info):
            throw SessionError(.rejected, "server refused the session: \(info)")
        case .closedBeforeEstablished(let reason):
            if case .closedByServer(let code, _) = reason, code != 1000, code != 1005 {
                // 1013 "try again later" (lws 4.1 shows it as 1002), 1001, 1011: the server cannot take us now.
                throw SessionError(.tryLater, "the server closed the socket before the session was established (\(reason)); trying again later")
            }
            throw SessionError(.closed, "socket closed before the session was established (\(reason))")
        case .connectFailed(let error):
            throw SessionError.connectFailed(error, url: configuration.url)
        case .timeout:
            abortSocket()
            throw SessionError(.timeout, "no getUserData within \(Int(configuration.connectTimeout)) s")
        }
    }

    private func baseRequest() -> ConnectionRequest {
        var r = ConnectionRequest()
        r.appKey = configuration.appKey
        r.keepAlive = configuration.keepAlive
        r.clientVersion = configuration.clientVersion
        r.clientOSVersion = configuration.clientOSVersion
        r.clientBrowserVersion = configuration.clientBrowserVersion
        r.custom = configuration.custom
        return r
    }

    /// Serializes login/resume so that concurrent callers never open two sockets.
    private func beginOperation() async {
        while operationInFlight {
            await withCheckedContinuation { operationWaiters.append($0) }
        }
        operationInFlight = true
    }

    private func endOperation() {
        operationInFlight = false
        if !operationWaiters.isEmpty { operationWaiters.removeFirst().resume() }
    }

    // MARK: - Socket lifecycle

    private func open(_ request: ConnectionRequest) async -> Handshake {
        closeSocket()
        generation += 1
        let gen = generation
        registration = nil
        replayedSinceHandshake = []
        var options = WebSocketOptions(url: configuration.url, caFile: configuration.caFile,
                                       allowInsecureTLS: configuration.allowInsecureTLS,
                                       connectTimeout: configuration.connectTimeout,
                                       tcpLiveness: configuration.tcpLiveness)
        options.preferredAddress = serverAddress
        options.preferredAddressGrace = preferredAddressGrace
        options.hostLookup = configuration.hostLookup
        let ws = WebSocketConnection(options: options, loop: loop)
        connection = ws
        // Queued before the connect: the transport writes it as soon as the upgrade completes, on
        // the loop thread, without a round trip through this actor (it is the first thing on the wire).
        send(.connection(request))
        setState(.connecting)
        readerTask = Task { [weak self] in
            for await event in ws.events {
                guard let self else { return }
                await self.handle(event, generation: gen)
            }
        }
        ws.connect()
        // The socket has its own connect timeout; this one bounds the wait for getUserData.
        let limit = configuration.connectTimeout * 2
        handshakeDeadline = Task { [weak self] in
            try? await Task.sleep(for: .seconds(limit))
            await self?.finishHandshake(.timeout, generation: gen)
        }
        return await withCheckedContinuation { handshake = $0 }
    }

    private func finishHandshake(_ result: Handshake, generation gen: Int) {
        guard gen == generation, let waiter = handshake else { return }
        handshake = nil
        handshakeDeadline?.cancel()
        handshakeDeadline = nil
        waiter.resume(returning: result)
    }

    /// Closes the current socket with a close frame (we asked for it).
    private func closeSocket() {
        guard let ws = connection else { return }
        closingOnPurpose = true
        ws.close()
        socketGone(.requested)
    }

    /// Drops the current socket without a close frame (it is unusable).
    private func abortSocket(_ reason: DisconnectReason = .requested) {
        guard let ws = connection else { return }
        closingOnPurpose = reason == .requested
        ws.abort()
        socketGone(reason)
    }

    /// Common end of a socket, whoever ended it. Emits `.disconnected` once per socket.
    private func socketGone(_ reason: DisconnectReason) {
        guard connection != nil else { return }
        connection = nil
        proberTask?.cancel()
        proberTask = nil
        generation += 1
        closingOnPurpose = false
        let wasUp = state != .disconnected
        setState(.disconnected)
        if let waiter = registrationWaiter {
            registrationWaiter = nil
            waiter.resume(returning: nil)
        }
        if let waiter = handshake {
            handshake = nil
            handshakeDeadline?.cancel()
            waiter.resume(returning: .closedBeforeEstablished(reason))
        }
        if wasUp {
            if reason.isUnexpected { Log.warning("session", "disconnected: \(reason)") } else { Log.info("session", "disconnected: \(reason)") }
            emit(.disconnected(reason))
        }
    }

    private func handle(_ event: WebSocketEvent, generation gen: Int) {
        guard gen == generation else { return }
        switch event {
        case .opened:
            if let ws = connection {
                if let address = ws.path?.peerAddress { serverAddress = Self.rememberable(address) }
                lastOpenSeconds = ws.core.connectToOpenMilliseconds.map { $0 / 1000 }
            }
            setState(.connected)
            pingsMissing = 0
            startProber(generation: gen)
        case .text(let text):
            receive(text)
        case .binary(let count):
            Log.debug("session", "ignored a binary frame of \(count) bytes")
        case .closed(let code, let reason):
            socketGone(code == 1006 ? .connectionLost("connection dropped") : .closedByServer(code: code, reason: reason))
        case .failed(let error):
            let waiter = handshake
            handshake = nil
            handshakeDeadline?.cancel()
            socketGone(.connectionLost(error.description))
            waiter?.resume(returning: .connectFailed(error))
        }
    }

    private func startProber(generation gen: Int) {
        let probes = configuration.receiveProbes
        let interval = configuration.probesInterval
        guard probes > 0, interval > 0 else { return }
        proberTask = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(interval))
                guard !Task.isCancelled, let self else { return }
                await self.probe(generation: gen)
            }
        }
    }

    private func probe(generation gen: Int) {
        guard gen == generation, connection != nil else { return }
        pingsMissing += 1
        guard pingsMissing >= configuration.receiveProbes else { return }
        let silent = Double(configuration.receiveProbes) * configuration.probesInterval
        Log.warning("session", "no ping from the server for \(Int(silent)) s; dropping the connection")
        abortSocket(.pingTimeout(seconds: silent))
    }

    private func send(_ message: ClientMessage) {
        Log.debug("session", "→ \(message.logDescription)")
        connection?.send(message.encoded())
    }

    private func setState(_ new: SessionState) {
        guard new != state else { return }
        state = new
        emit(.stateChanged(new))
    }

    private func emit(_ event: SessionEvent) {
        eventSink.yield(event)
    }

    private func waitForRegistration(limit: Double? = nil) async -> RegistrationResult? {
        if let registration { return registration }
        let gen = generation
        let limit = limit ?? configuration.registrationTimeout
        let timer = Task { [weak self] in
            try? await Task.sleep(for: .seconds(limit))
            await self?.registrationTimedOut(generation: gen)
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { registrationWaiter = $0 }
    }

    private func registrationTimedOut(generation gen: Int) {
        guard gen == generation, let waiter = registrationWaiter else { return }
        registrationWaiter = nil
        waiter.resume(returning: nil)
    }

    private func registrationArrived(_ result: RegistrationResult) {
        registration = result
        switch result {
        case .registered: setState(.registered)
        case .failed(let status, let info): emit(.registrationFailed(status: status, info: info))
        }
        if let waiter = registrationWaiter {
            registrationWaiter = nil
            waiter.resume(returning: result)
        }
    }

    // MARK: - Incoming messages

    private func receive(_ text: String) {
        let message: ServerMessage
        do {
            message = try ServerMessageDecoder.decode(text)
        } catch {
            Log.warning("session", "ignored a malformed frame: \(error)")
            emit(.warning("malformed frame: \(error)"))
            return
        }
        switch message {
        case .ping:
            pingsMissing = 0
            send(.pong)
            lastPongAt = Date()
        case .pong:
            break
        case .getUserData(let user):
            Log.debug("session", "← getUserData (session \(user.sessionId ?? "?"), login \(user.sipLogin ?? "-"))")
            // A `registered` that came first (some servers send it before getUserData) stays.
            if case .registered? = registration { setState(.registered) } else { setState(.established) }
            finishHandshake(.established(user), generation: generation)
        case .registered(let status, let info):
            if let status, status.uppercased() != "REGISTERED" {
                registrationArrived(.failed(status: status, info: info))
            } else {
                registrationArrived(.registered)
            }
        case .fail(let fail):
            handleFail(fail)
        case .setRemoteSDP(let callId, let sdp):
            handleRemoteSDP(callId: callId, sdp: sdp)
        case .notifyIncomingCall(let call):
            handleIncomingCall(call)
        case .callStatus(let name, let call):
            handleCallStatus(name: name, call)
        case .transferStatus(let callId, let status, let info):
            guard calls[callId] != nil else { Log.debug("session", "transfer event for unknown call \(callId)"); return }
            emit(.transfer(callId: callId, status: status, info: info))
        case .dataEvent(let payload):
            emit(.dataEvent(payload))
        case .dtmf(let callId, let digits, let type):
            guard calls[callId] != nil else { Log.debug("session", "relayed DTMF for unknown call \(callId) ignored"); return }
            emit(.dtmf(callId: callId, digits: digits, type: type))
        case .dataStatus(let operationId, let status, let info):
            emit(.dataStatus(operationId: operationId, status: status, info: info))
        case .sessionDebugStatus(let status, let file):
            emit(.sessionDebug(status: status, file: file))
        case .ignored(let name):
            Log.debug("session", "← \(name) (not used)")
        case .unknown(let name):
            Log.info("session", "ignored unknown message \"\(name)\"")
        }
    }

    private func handleFail(_ fail: FailInfo) {
        let info = fail.info ?? fail.status ?? "no reason given"
        switch fail.apiMethod {
        case "RegistrationStatusEvent":
            registrationArrived(.failed(status: fail.status, info: fail.info))
        case "ConnectionStatusEvent":
            if handshake != nil {
                finishHandshake(.rejected(info), generation: generation)
            } else {
                Log.warning("session", "server reported a session failure: \(info)")
                emit(.warning("session failure: \(info)"))
            }
        case "CallStatusEvent":
            if let id = fail.id, var call = calls.removeValue(forKey: id) {
                call.info.status = .failed
                call.info.info = fail.info
                emit(.callStatus(call.info))
            } else {
                emit(.warning("call failure: \(info)"))
            }
        default:
            Log.warning("session", "server fail (\(fail.apiMethod ?? "no apiMethod")): \(info)")
            emit(.warning("server fail: \(info)"))
        }
    }

    private func handleRemoteSDP(callId: String, sdp: String) {
        if var call = calls[callId] {
            call.remoteSDP = sdp
            calls[callId] = call
            emit(.remoteSDP(callId: callId, sdp: sdp))
            return
        }
        pendingSDP.removeAll { $0.callId == callId }
        pendingSDP.append((callId, sdp))
        if pendingSDP.count > Self.pendingSDPLimit { pendingSDP.removeFirst() }
    }

    private func handleIncomingCall(_ info: CallInfo) {
        var info = info
        info.incoming = true
        let known = calls[info.callId]
        // A late duplicate (an INVITE retransmission) of a call we answered or that is up: the call
        // keeps its status (a talking call must not go back to RING: in-call requests check it).
        if let known, known.direction == .incoming, !known.info.status.isRinging {
            Log.info("session", "incoming call \(info.callId) announced again while \(known.info.status.wire); duplicate ignored")
            return
        }
        var sdp = known?.remoteSDP
        if let index = pendingSDP.firstIndex(where: { $0.callId == info.callId }) {
            sdp = pendingSDP.remove(at: index).sdp
        }
        if sdp == nil { Log.warning("session", "incoming call \(info.callId) arrived without an SDP offer") }
        calls[info.callId] = CallSnapshot(info: info, direction: .incoming, remoteSDP: sdp)
        if handshake == nil, state != .connected { replayedSinceHandshake.append(info) }
        Log.info("session", "incoming call \(info.callId) from \(info.caller ?? "?")\(known != nil ? " (replayed)" : "")")
        emit(.incomingCall(info, offer: sdp, replayed: known != nil))
    }

    private func handleCallStatus(name: String, _ update: CallInfo) {
        guard var call = calls[update.callId] else {
            Log.debug("session", "\(name) for unknown call \(update.callId) ignored")
            return
        }
        call.info.status = update.status
        if let info = update.info { call.info.info = info }
        if call.info.caller == nil { call.info.caller = update.caller }
        if call.info.callee == nil { call.info.callee = update.callee }
        if update.status.isTerminal {
            calls[update.callId] = nil
        } else {
            calls[update.callId] = call
        }
        emit(.callStatus(call.info))
    }

    // MARK: - Calls

    /// The SDP the server sent for a call (offer of an incoming call, answer of an outgoing one).
    /// The offer also arrives with `.incomingCall`; this stays for callers that look it up later.
    public func remoteSDP(for callId: String) -> String? {
        calls[callId]?.remoteSDP ?? pendingSDP.first { $0.callId == callId }?.sdp
    }

    /// Stops tracking a call we gave up on (we hung it up and will not wait for the server's
    /// `finish`); later server messages naming it are ignored.
    public func forget(callId: String) {
        calls[callId] = nil
        pendingSDP.removeAll { $0.callId == callId }
    }

    /// The calls this session knows, with their last status.
    public func currentCalls() -> [CallSnapshot] {
        Array(calls.values)
    }

    /// Places an outgoing call with our SDP offer; returns its call id.
    @discardableResult
    public func call(callee: String, sdp: String, visibleName: String? = nil,
                     callId: String = UUID().uuidString.lowercased()) throws(SessionError) -> String
    {
        try requireSession()
        guard !callee.isEmpty else { throw SessionError(.invalidArgument, "no number to call") }
        let caller = sessionInfo?.sipLogin ?? configuration.credentials?.login ?? ""
        let request = OutgoingCallRequest(callId: callId, callee: callee, caller: caller, visibleName: visibleName, sdp: sdp)
        var info = CallInfo(["callId": .string(callId)], defaultStatus: .pending)!
        info.incoming = false
        info.caller = caller
        info.callee = callee
        calls[callId] = CallSnapshot(info: info, direction: .outgoing, remoteSDP: nil)
        send(.call(request))
        return callId
    }

    /// Answers a ringing incoming call with our SDP answer.
    public func answer(callId: String, sdp: String) throws(SessionError) {
        try requireSession()
        guard var call = calls[callId] else { throw SessionError(.unknownCall, "no call \(callId)") }
        guard call.direction == .incoming, call.info.status.isRinging || call.info.status == .pending else {
            throw SessionError(.invalidCallState, "call \(callId) is \(call.info.status), not ringing")
        }
        call.info.status = .pending
        calls[callId] = call
        send(.answer(callId: callId, callee: call.info.callee, sdp: sdp))
    }

    /// Declines a ringing call, cancels an outgoing one or ends a talking one. Once `call` or
    /// `answer` was sent, `hangup` is always sent (unlike the JS SDK).
    public func hangup(callId: String) throws(SessionError) {
        try requireSession()
        guard calls[callId] != nil else { throw SessionError(.unknownCall, "no call \(callId)") }
        send(.hangup(callId: callId))
    }

    /// Puts a call on hold (also the first step of a transfer).
    public func hold(callId: String, forTransfer: Bool = false) throws(SessionError) {
        try requireCall(callId, in: [.established, .hold])
        send(.hold(callId: callId, forTransfer: forTransfer))
    }

    /// Resumes a held call.
    public func unhold(callId: String) throws(SessionError) {
        try requireCall(callId, in: [.hold, .established])
        send(.unhold(callId: callId))
    }

    /// Sends DTMF digits (0-9, *, #, A-D) through the server.
    public func sendDTMF(callId: String, digits: String, type: DTMFType = .rfc2833) throws(SessionError) {
        try requireCall(callId, in: [.established, .hold, .ringMedia, .sessionProgress])
        let allowed = Set("0123456789*#ABCDabcd")
        guard !digits.isEmpty, digits.allSatisfy(allowed.contains) else {
            throw SessionError(.invalidArgument, "DTMF digits must be 0-9, *, # or A-D")
        }
        send(.sendDtmf(callId: callId, digits: digits.uppercased(), type: type))
    }

    /// Blind transfer of a call to `target`.
    public func transfer(callId: String, target: String) throws(SessionError) {
        try requireCall(callId, in: [.established, .hold])
        guard !target.isEmpty else { throw SessionError(.invalidArgument, "no transfer target") }
        send(.transfer(callId: callId, target: target))
    }

    /// Sends app data to the server's backend; the answer arrives as `.dataStatus` with the
    /// returned operation id.
    @discardableResult
    public func sendData(_ payload: JSONValue) throws(SessionError) -> String {
        try requireSession()
        let operationId = UUID().uuidString.lowercased()
        send(.sendData(operationId: operationId, payload: payload))
        return operationId
    }

    /// Turns server-side debug logging of this session on or off (answered by `.sessionDebug`).
    public func setServerDebug(_ on: Bool) throws(SessionError) {
        try requireSession()
        send(.sessionDebug(start: on))
    }

    private func requireSession() throws(SessionError) {
        guard state == .established || state == .registered, connection != nil else {
            throw SessionError(.notConnected, "not connected to the server")
        }
    }

    private func requireCall(_ callId: String, in states: Set<CallStatus>) throws(SessionError) {
        try requireSession()
        guard let call = calls[callId] else { throw SessionError(.unknownCall, "no call \(callId)") }
        guard states.contains(call.info.status) else {
            throw SessionError(.invalidCallState, "call \(callId) is \(call.info.status)")
        }
    }
}
