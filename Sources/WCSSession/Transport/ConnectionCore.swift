import CWebSockets
import DecimalText
import Dispatch
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import MainLoop
import Synchronization

/// The loop-side state machine of one WebSocket client connection.
///
/// Runs on: its `MainLoop`. It is an actor whose executor is that loop, so the compiler keeps
/// its state on the loop thread: `connect`/`send`/`close`/`abort` are `nonisolated` and only
/// touch thread-safe parts (`requests`, a `Mutex`); lws callbacks, timers and posted work, all
/// of which GLib runs on the loop thread, enter with `assumeIsolated`. While lws knows a wsi of
/// this connection, the core holds a retain on itself (released on WSI_DESTROY), so dropping
/// the public handle never leaves lws with a dangling user-data pointer.
actor ConnectionCore {
    private enum Phase {
        case idle, preparingTLS, resolving, connecting, open, closing, finished
    }

    private enum Resolution {
        case notNeeded, pending, done, failed(WebSocketError)
    }

    nonisolated let options: WebSocketOptions
    nonisolated let loop: MainLoop
    nonisolated let requests = ConnectionRequests()
    private nonisolated let continuation: AsyncStream<WebSocketEvent>.Continuation
    /// `connect()` bookkeeping, touched from the caller's thread and the loop.
    private nonisolated let startRecord = Mutex((requested: false, calledAt: DispatchTime?.none, toOpen: Double?.none))
    /// The socket's two ends once it opened (read from any thread through `WebSocketConnection.path`).
    nonisolated let openedPath = Mutex<SocketPath?>(nil)
    /// For wss://, once open: whether the TLS handshake resumed a kept session (`TLSSessionCache`).
    nonisolated let tlsResumed = Mutex<Bool?>(nil)

    // Loop-confined state.
    private var phase = Phase.idle
    private var endpoint: WebSocketEndpoint?
    private var context: LWSClientContext?
    private var vhost: OpaquePointer?
    private var addresses: [String] = []
    private var nextAddress = 0
    private var currentAddress = ""
    /// Where the name's resolution stands (`.pending` while it runs beside a preferred address).
    private var resolution = Resolution.notNeeded
    /// The current attempt is to `options.preferredAddress`: any failure before the open falls
    /// back to the resolved addresses, and `preferredGraceTimer` bounds how long it may take.
    private var attemptIsPreferred = false
    private var preferredGraceTimer: LoopTimer?
    private var wsi: OpaquePointer?
    private var holdsWsiRetain = false
    private var wsiDestroyCount = 0
    /// Counts lws connection attempts, so a deferred kill never hits a later wsi.
    private var wsiGeneration = 0
    private var connectTimer: LoopTimer?
    private var closeTimer: LoopTimer?
    private var startedAt = DispatchTime.now()
    private var sawTCPConnect = false
    private var lastConnectError: String?
    private var verifyFailure: String?
    private var pendingTerminal: WebSocketEvent?
    private var killIssued = false
    private var sentClose: CloseFrame?
    private var peerClose: CloseFrame?
    private var incoming = IncomingMessage()

    init(options: WebSocketOptions, loop: MainLoop, continuation: AsyncStream<WebSocketEvent>.Continuation) {
        self.options = options
        self.loop = loop
        self.continuation = continuation
    }

    /// The loop is this actor's executor.
    nonisolated var unownedExecutor: UnownedSerialExecutor { loop.asUnownedSerialExecutor() }

    /// Runs `body` isolated to this connection, soon, on the loop thread.
    private nonisolated func onLoop(_ body: @escaping @Sendable (isolated ConnectionCore) -> Void) {
        loop.post { [self] in assumeIsolated(body) }
    }

    /// Runs `body` isolated to this connection on the loop thread after `seconds`.
    private func onLoop(after seconds: Double, _ body: @escaping @Sendable (isolated ConnectionCore) -> Void) -> LoopTimer {
        loop.schedule(after: seconds) { [self] in assumeIsolated(body) }
    }

    /// Milliseconds from `connect()` to the upgrade completing on the loop (for benchmarks).
    nonisolated var connectToOpenMilliseconds: Double? {
        startRecord.withLock { $0.toOpen }
    }

    // MARK: - Requests from any thread

    nonisolated func connect() {
        let first = startRecord.withLock { start in
            defer { start.requested = true }
            if !start.requested { start.calledAt = DispatchTime.now() }
            return !start.requested
        }
        guard first else {
            Log.warning("transport", "connect() called more than once; ignored")
            return
        }
        guard !loop.isStopped else {
            continuation.yield(.failed(WebSocketError(kind: .other, message: "the main loop '\(loop.name)' is stopped")))
            continuation.finish()
            return
        }
        onLoop { $0.start() }
    }

    nonisolated func send(_ text: String) {
        if requests.enqueue(text: text) { wake() }
    }

    nonisolated func close(code: Int, reason: String) {
        let request = CloseFrame(sending: code, reason: reason)
        if requests.requestClose(request) { wake() }
    }

    nonisolated func abort() {
        if requests.requestAbort() { wake() }
    }

    /// Gets the loop to look at `requests`: through lws once a context is chosen (pitfall 2:
    /// only lws_cancel_service may be called off the loop thread), else through a posted job.
    private nonisolated func wake() {
        if let context = requests.context {
            context.cancelService()
        } else {
            onLoop { $0.serviceRequests(insideCallback: false) }
        }
    }

    // MARK: - Start, resolve, connect (loop thread)

    private func start() {
        guard phase == .idle else { return }
        startedAt = DispatchTime.now()
        let endpoint: WebSocketEndpoint
        do {
            endpoint = try WebSocketEndpoint(parsing: options.url)
        } catch let error as WebSocketError {
            return finish(.failed(error))
        } catch {
            return finish(.failed(WebSocketError(kind: .badURL, message: "\(error)")))
        }
        self.endpoint = endpoint
        phase = .connecting
        let timeout = options.effectiveConnectTimeout
        connectTimer = onLoop(after: timeout) { $0.connectTimedOut(after: timeout) }

        do {
            let context = try LWSClientContext.obtain(loop: loop)
            self.context = context
            context.assumeIsolated { $0.register(self) }
            requests.context = context
        } catch let error as WebSocketError {
            return finish(.failed(error))
        } catch {
            return finish(.failed(WebSocketError(kind: .other, message: "\(error)")))
        }
        if serviceRequests(insideCallback: false) { return }

        guard let trust = TLSTrust.forConnection(secure: endpoint.secure, options: options) else {
            vhost = context?.assumeIsolated { $0.plainClientVhost.map(LWSPointer.init) }?.pointer
            return resolveAndConnect()
        }
        if options.allowInsecureTLS {
            Log.warning("transport", "TLS certificate verification is disabled for \(endpoint.displayName) (allowInsecureTLS)")
        }
        if let sslContext = ClientTLSContexts.shared.cached(trust) {
            return tlsReady(trust, .success(sslContext))
        }
        phase = .preparingTLS
        ClientTLSContexts.shared.obtain(trust) { [self] result in
            onLoop { $0.tlsReady(trust, result) }
        }
    }

    /// The client SSL_CTX is built (off the loop): set up the vhost and go on.
    private func tlsReady(_ trust: TLSTrust, _ result: Result<SSLContextHandle, WebSocketError>) {
        guard phase == .connecting || phase == .preparingTLS, let context else { return }
        do {
            let sslContext = try result.get()
            vhost = try context.assumeIsolated { try LWSPointer($0.vhost(for: trust, sslContext: sslContext)) }.pointer
        } catch let error as WebSocketError {
            return finish(.failed(error))
        } catch {
            return finish(.failed(WebSocketError(kind: .tls, message: "\(error)")))
        }
        phase = .connecting
        resolveAndConnect()
    }

    /// A literal host is the address. A name is resolved off the loop; with a preferred address
    /// the connect starts at once and the resolution only matters if that address fails.
    private func resolveAndConnect() {
        guard let endpoint else { return }
        guard endpoint.hostKind == .name else {
            addresses = [endpoint.host]
            return connectNextAddress()
        }
        resolution = .pending
        HostResolver.resolve(endpoint.host, lookup: options.hostLookup) { [self] result in
            onLoop { $0.resolved(result) }
        }
        guard let preferred = options.preferredAddress else {
            phase = .resolving
            return
        }
        Log.debug("transport", "trying \(preferred) (it held the session) while resolving \(endpoint.host)")
        addresses = [preferred]
        connectNextAddress()
    }

    private func resolved(_ result: Result<[String], WebSocketError>) {
        guard case .pending = resolution, phase != .finished else { return }
        switch result {
        case .failure(let error):
            resolution = .failed(error)
            // Waiting only for this answer (no address, or the preferred one failed): it is the outcome.
            if phase == .resolving { finish(.failed(addresses.isEmpty ? error : connectFailure())) }
        case .success(let found):
            resolution = .done
            Log.debug("transport", "\(endpoint?.host ?? "?") resolved to \(found.joined(separator: ", "))")
            addresses += found.filter { !addresses.contains($0) }
            guard phase == .resolving else { return }
            phase = .connecting
            connectNextAddress()
        }
    }

    /// The preferred address has not opened in time: drop it and go on with the resolved ones.
    private func preferredAddressTooSlow(generation: Int) {
        guard generation == wsiGeneration, attemptIsPreferred, phase == .connecting, pendingTerminal == nil,
              wsi != nil else { return }
        lastConnectError = "\(currentAddress) did not open within \(Self.format(options.preferredAddressGrace * 1000)) ms"
        Log.debug("transport", "\(lastConnectError!); trying the resolved addresses")
        kill(insideCallback: false)
    }

    /// Starts an lws client connection to the next resolved address (outside lws callbacks).
    private func connectNextAddress() {
        guard phase == .connecting, pendingTerminal == nil, let endpoint, let context,
              let handle = context.assumeIsolated({ $0.handle.map(LWSPointer.init) })?.pointer else { return }
        guard nextAddress < addresses.count else {
            return finish(.failed(connectFailure()))
        }
        currentAddress = addresses[nextAddress]
        nextAddress += 1
        wsiGeneration += 1
        sawTCPConnect = false
        verifyFailure = nil
        attemptIsPreferred = nextAddress == 1 && currentAddress == options.preferredAddress
        preferredGraceTimer?.cancel()
        preferredGraceTimer = nil
        if attemptIsPreferred {
            let generation = wsiGeneration
            preferredGraceTimer = onLoop(after: options.preferredAddressGrace) {
                $0.preferredAddressTooSlow(generation: generation)
            }
        }

        var flags: Int32 = 0
        if endpoint.secure {
            flags |= Int32(LCCSCF_USE_SSL.rawValue)
            if options.allowInsecureTLS {
                flags |= Int32(LCCSCF_ALLOW_SELFSIGNED.rawValue | LCCSCF_SKIP_SERVER_CERT_HOSTNAME_CHECK.rawValue
                               | LCCSCF_ALLOW_EXPIRED.rawValue | LCCSCF_ALLOW_INSECURE.rawValue)
            } else if endpoint.hostKind == .ipv6 {
                // lws cuts the TLS name at the first ':' of the Host header, which breaks IPv6
                // literals; verifyCertificate checks the IP itself instead.
                flags |= Int32(LCCSCF_SKIP_SERVER_CERT_HOSTNAME_CHECK.rawValue)
            }
        }

        // address: what to connect to (an IP, so lws never resolves on the loop).
        // host: the Host header; lws also takes the TLS SNI and verified name from it
        // (cut at the first ':'), so the certificate is checked against the URL's host.
        let cAddress = strdup(currentAddress)
        let cPath = strdup(endpoint.path)
        let cHost = strdup(endpoint.hostHeader)
        let cALPN = strdup("http/1.1")
        defer { free(cAddress); free(cPath); free(cHost); free(cALPN) }
        var info = lws_client_connect_info()
        info.context = handle
        info.vhost = vhost
        info.address = UnsafePointer(cAddress)
        info.port = Int32(endpoint.port)
        info.ssl_connection = flags
        info.path = UnsafePointer(cPath)
        info.host = UnsafePointer(cHost)
        info.alpn = UnsafePointer(cALPN)
        info.ietf_version_or_minus_one = -1
        info.opaque_user_data = Unmanaged.passRetained(self).toOpaque()
        holdsWsiRetain = true
        let destroysBefore = wsiDestroyCount

        Log.debug("transport", "connecting to \(endpoint.displayName) via \(currentAddress)")
        let created = lws_client_connect_via_info(&info)
        if let created {
            if wsi == nil && wsiDestroyCount == destroysBefore { wsi = created }
        } else if wsiDestroyCount == destroysBefore {
            // Failed inside the call without a WSI_DESTROY (lws suppresses CONNECTION_ERROR
            // there), so the retain taken for this wsi is still ours to drop.
            wsiGone()
            releaseWsiRetain()
        }
    }

    // MARK: - Servicing requests (loop thread)

    /// Acts on close/abort/send requests. Returns true if the connection is finished or
    /// being torn down because of them.
    @discardableResult
    func serviceRequests(insideCallback: Bool) -> Bool {
        let pending = requests.beginService()
        guard phase != .finished else { return true }
        let opened = phase == .open || phase == .closing
        if pending.abort || (pending.close != nil && !opened) {
            if pendingTerminal == nil {
                let what = pending.abort ? "abort()" : "close()"
                pendingTerminal = opened
                    ? .closed(code: 1006, reason: "aborted")
                    : .failed(WebSocketError(kind: .other, message: "\(what) called before the connection opened"))
            }
            if wsi != nil {
                kill(insideCallback: insideCallback)
            } else {
                finish(pendingTerminal!)
            }
            return true
        }
        if phase == .open, let wsi, pending.hasOutgoing || pending.close != nil {
            lws_callback_on_writable(wsi)
        }
        return false
    }

    /// Drops the wsi without a close frame. The terminal event goes out on WSI_DESTROY.
    ///
    /// The kill is always synchronous and outside lws callbacks: from inside one it is posted
    /// to the loop. (lws's own deferred kill, LWS_TO_KILL_ASYNC, waits for lws's GLib idle
    /// source, which was seen to starve for many seconds under load.)
    private func kill(insideCallback: Bool) {
        guard wsi != nil, !killIssued else { return }
        killIssued = true
        guard !insideCallback else {
            let generation = wsiGeneration
            onLoop { $0.killNow(generation: generation) }
            return
        }
        killNow(generation: wsiGeneration)
    }

    private func killNow(generation: Int) {
        guard generation == wsiGeneration, let wsi else { return } // that wsi is already gone
        lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_SYNC)
    }

    private func connectTimedOut(after seconds: Double) {
        guard phase != .finished, phase != .open, phase != .closing, pendingTerminal == nil else { return }
        let target = endpoint?.displayName ?? options.url
        pendingTerminal = .failed(WebSocketError(
            kind: .timeout, message: "connecting to \(target) timed out after \(Self.format(seconds)) s"))
        if wsi != nil {
            kill(insideCallback: false)
        } else {
            finish(pendingTerminal!)
        }
    }

    /// The loop is stopping and lws closed everything; finish whatever is still alive.
    func contextDestroyed() {
        wsi = nil
        guard phase != .finished else { return }
        finish(pendingTerminal ?? defaultTerminal(reason: "the main loop stopped"))
    }

    // MARK: - lws callbacks (loop thread)

    private func adopt(_ callbackWsi: OpaquePointer) -> Bool {
        if wsi == nil && holdsWsiRetain && !killIssued { wsi = callbackWsi }
        return wsi == callbackWsi
    }

    func tcpConnected(_ callbackWsi: OpaquePointer) {
        guard adopt(callbackWsi) else { return }
        sawTCPConnect = true
    }

    func connectionError(_ callbackWsi: OpaquePointer, message: String?) {
        guard adopt(callbackWsi) else { return }
        let text = Self.trimmed(message ?? "")
        lastConnectError = text.isEmpty ? nil : text
        guard pendingTerminal == nil, let endpoint else { return }
        if attemptIsPreferred {
            // Whatever went wrong there (refused, TLS, upgrade), the resolved addresses come next.
            if let verifyFailure { lastConnectError = "TLS certificate verify failed: \(verifyFailure)" }
            return
        }
        if let verifyFailure {
            pendingTerminal = .failed(WebSocketError(kind: .tls, message: "TLS certificate verify failed: \(verifyFailure) (server \(endpoint.displayName))"))
        } else if Self.looksLikeTLS(text) && endpoint.secure {
            pendingTerminal = .failed(WebSocketError(kind: .tls, message: "TLS handshake with \(endpoint.displayName) failed (lws: \(text))"))
        } else if sawTCPConnect {
            let refusal = UpgradeRefusal(callbackWsi)
            pendingTerminal = .failed(WebSocketError(
                kind: .handshake,
                message: "WebSocket upgrade with \(endpoint.displayName) failed: \(text.isEmpty ? "no details" : text)\(refusal.description)",
                httpStatus: refusal.status, retryAfterSeconds: refusal.retryAfter))
        }
        // Otherwise TCP never connected: wsiDestroyed tries the next address or reports .connect.
    }

    func verifyCertificate(storeContext: OpaquePointer?, preverifyOK: Bool) -> Int32 {
        guard let storeContext, let endpoint else { return 0 }
        let check = CertificateCheck(insecure: options.allowInsecureTLS,
                                     ipv6Literal: endpoint.hostKind == .ipv6 ? endpoint.host : nil)
        let verdict = check.evaluate(storeContext: storeContext, preverifyOK: preverifyOK)
        if verifyFailure == nil { verifyFailure = verdict.failure }
        return verdict.reject ? 1 : 0
    }

    func established(_ callbackWsi: OpaquePointer) {
        guard adopt(callbackWsi), pendingTerminal == nil, phase == .connecting else { return }
        phase = .open
        preferredGraceTimer?.cancel()
        preferredGraceTimer = nil
        tuneOpenedSocket(lws_get_socket_fd(callbackWsi))
        connectTimer?.cancel()
        connectTimer = nil
        let now = DispatchTime.now().uptimeNanoseconds
        startRecord.withLock { start in
            if let calledAt = start.calledAt { start.toOpen = Double(now - calledAt.uptimeNanoseconds) / 1e6 }
        }
        let milliseconds = Double(now - startedAt.uptimeNanoseconds) / 1e6
        var tls = ""
        if endpoint?.secure == true, let ssl = lws_get_ssl(callbackWsi) {
            let resumed = SSL_session_reused(ssl) == 1
            tlsResumed.withLock { $0 = resumed }
            tls = resumed ? " (TLS session resumed)" : " (full TLS handshake)"
        }
        Log.debug("transport", "WebSocket to \(endpoint?.displayName ?? "?") open after \(Self.format(milliseconds)) ms\(tls)")
        continuation.yield(.opened)
        serviceRequests(insideCallback: true) // flushes messages queued before the open
    }

    func received(_ callbackWsi: OpaquePointer, _ bytes: UnsafeRawBufferPointer) -> Int32 {
        guard callbackWsi == wsi, phase == .open || phase == .closing, pendingTerminal == nil else { return 0 }
        let isFirst = incoming.isEmpty
        if isFirst { incoming.isBinary = lws_frame_is_binary(callbackWsi) != 0 }
        guard incoming.append(bytes, limit: options.maxMessageBytes) else {
            Log.warning("transport", "incoming message larger than \(options.maxMessageBytes) bytes; closing with 1009")
            return closeNow(callbackWsi, CloseFrame(code: 1009, reason: "message too big"))
        }
        if lws_is_final_fragment(callbackWsi) != 0 && lws_remaining_packet_payload(callbackWsi) == 0 {
            continuation.yield(incoming.take())
        }
        return 0
    }

    func writeable(_ callbackWsi: OpaquePointer) -> Int32 {
        guard callbackWsi == wsi, phase == .open, pendingTerminal == nil else { return 0 }
        if var frame = requests.popOutgoing() {
            let headroom = wcs_lws_pre()
            let payload = frame.count - headroom
            let written = frame.withUnsafeMutableBufferPointer { buffer in
                lws_write(callbackWsi, buffer.baseAddress! + headroom, payload, LWS_WRITE_TEXT)
            }
            if written < payload {
                Log.warning("transport", "lws_write failed (\(written) of \(payload) bytes); dropping the connection")
                return -1
            }
            if requests.hasPendingWrites { lws_callback_on_writable(callbackWsi) }
            return 0
        }
        if let close = requests.closeRequest {
            return closeNow(callbackWsi, close)
        }
        return 0
    }

    /// Sends a close frame (lws does it when the callback returns -1) and waits for the peer,
    /// at most `closeGraceSeconds`, then drops the socket.
    private func closeNow(_ callbackWsi: OpaquePointer, _ request: CloseFrame) -> Int32 {
        sentClose = request
        phase = .closing
        closeTimer = onLoop(after: Self.closeGraceSeconds) { core in
            guard core.phase == .closing, core.wsi != nil else { return }
            Log.debug("transport", "no close answer from \(core.endpoint?.displayName ?? "?") in time; dropping the socket")
            core.kill(insideCallback: false)
        }
        var reason = Array(request.reason.utf8)
        reason.withUnsafeMutableBufferPointer { buffer in
            lws_close_reason(callbackWsi, lws_close_status(rawValue: UInt32(request.code)), buffer.baseAddress, buffer.count)
        }
        return -1
    }

    func peerInitiatedClose(_ payload: UnsafeRawBufferPointer) {
        guard phase == .open || phase == .closing else { return }
        peerClose = CloseFrame(payload: payload)
    }

    func closed(_ callbackWsi: OpaquePointer) {
        guard callbackWsi == wsi, pendingTerminal == nil else { return }
        if let sentClose {
            pendingTerminal = .closed(code: sentClose.code, reason: sentClose.reason)
        } else if let peerClose {
            pendingTerminal = .closed(code: peerClose.code, reason: peerClose.reason)
        } else if phase == .open || phase == .closing {
            pendingTerminal = .closed(code: 1006, reason: "connection lost")
        }
    }

    func wsiDestroyed(_ callbackWsi: OpaquePointer) {
        guard holdsWsiRetain, wsi == nil || wsi == callbackWsi else { return }
        wsiDestroyCount += 1
        wsiGone()
        releaseWsiRetain() // last: may free self
    }

    /// The current wsi no longer exists: try the next address, or report the outcome.
    private func wsiGone() {
        wsi = nil
        killIssued = false
        guard phase != .finished else { return }
        let neverOpened = phase == .connecting
        if pendingTerminal == nil, neverOpened, !sawTCPConnect || attemptIsPreferred {
            if nextAddress < addresses.count {
                Log.debug("transport", "connect via \(currentAddress) failed (\(lastConnectError ?? "no details")); trying the next address")
                onLoop { $0.connectNextAddress() }
                return
            }
            if case .pending = resolution {
                Log.debug("transport", "connect via \(currentAddress) failed (\(lastConnectError ?? "no details")); waiting for DNS")
                phase = .resolving
                return
            }
        }
        finish(pendingTerminal ?? defaultTerminal(reason: "connection lost"))
    }

    private func releaseWsiRetain() {
        guard holdsWsiRetain else { return }
        holdsWsiRetain = false
        Unmanaged.passUnretained(self).release()
    }

    // MARK: - Ending

    private func defaultTerminal(reason: String) -> WebSocketEvent {
        switch phase {
        case .open, .closing: .closed(code: 1006, reason: reason)
        default: .failed(connectFailure())
        }
    }

    private func connectFailure() -> WebSocketError {
        let target = endpoint?.displayName ?? options.url
        let tried = addresses.count > 1 || options.preferredAddress != nil ? " (tried \(addresses.joined(separator: ", ")))" : ""
        let detail = lastConnectError.map { " (lws: \($0))" } ?? ""
        var dns = ""
        if case .failed(let error) = resolution { dns = "; \(error.message)" }
        return WebSocketError(kind: .connect,
                              message: "could not connect to \(target)\(tried): connection refused or unreachable\(detail)\(dns)")
    }

    /// Emits the one terminal event and finishes the stream.
    private func finish(_ event: WebSocketEvent) {
        guard phase != .finished else { return }
        phase = .finished
        connectTimer?.cancel()
        connectTimer = nil
        preferredGraceTimer?.cancel()
        preferredGraceTimer = nil
        closeTimer?.cancel()
        closeTimer = nil
        requests.finish()
        context?.assumeIsolated { $0.unregister(self) }
        context = nil
        Log.debug("transport", "connection to \(endpoint?.displayName ?? options.url) ended: \(event)")
        continuation.yield(event)
        continuation.finish()
    }

    // MARK: - Helpers

    private static func looksLikeTLS(_ message: String) -> Bool {
        let lowered = message.lowercased()
        return ["ssl", "tls", "certificate", "x509"].contains { lowered.contains($0) }
    }

    /// How long a close handshake may take before the socket is dropped (lws waits ~5 s).
    static let closeGraceSeconds = 7.0

    private static func format(_ value: Double) -> String { DecimalText.fixed(value, decimals: 1) }

    /// lws's error text without the NULs and whitespace around it.
    private static func trimmed(_ text: String) -> String {
        text.trimming { $0 == "\0" || $0.properties.isWhitespace }
    }
}
