import MainLoop

/// A WebSocket client connection (ws:// or wss://) driven by libwebsockets on a `MainLoop`.
///
/// All methods are thread-safe and return immediately; everything happens on the loop thread
/// and is reported through `events`. Host names are resolved off the loop; TLS is verified
/// against the system CAs, or `caFile`, unless `allowInsecureTLS`.
///
/// Lifetime: the connection stays up until either side closes it, even if this object is
/// released; cancelling the task that iterates `events` closes it with 1001.
public final class WebSocketConnection: Sendable {
    /// Everything that happens, in order; exactly one terminal event (`.closed` or `.failed`),
    /// then the stream finishes.
    public let events: AsyncStream<WebSocketEvent>
    /// Internal so tests can check that finished connections are freed.
    let core: ConnectionCore

    /// Creates a connection; nothing happens until `connect()`.
    public init(options: WebSocketOptions, loop: MainLoop = .shared) {
        let (stream, continuation) = AsyncStream.makeStream(of: WebSocketEvent.self)
        let core = ConnectionCore(options: options, loop: loop, continuation: continuation)
        continuation.onTermination = { [weak core] termination in
            if case .cancelled = termination {
                core?.close(code: 1001, reason: "going away")
            }
        }
        self.events = stream
        self.core = core
    }

    /// The socket's local and peer addresses, once it opened (nil before).
    public var path: SocketPath? { core.openedPath.withLock { $0 } }

    /// For wss://, once open: whether TLS resumed the session of an earlier connection to the same
    /// server (no certificate exchange this time; see `TLSSessionCache`). Nil for ws:// and before.
    public var tlsSessionResumed: Bool? { core.tlsResumed.withLock { $0 } }

    /// Starts connecting (once; later calls are ignored). Returns immediately.
    public func connect() {
        core.connect()
    }

    /// Sends a text message. Messages sent before the connection opens are queued and go out
    /// in order once it does; after `close()`/`abort()` or the end of the connection they are
    /// dropped silently.
    public func send(_ text: String) {
        core.send(text)
    }

    /// Flushes queued messages, sends a close frame with `code` and `reason` (at most 123
    /// bytes) and reports `.closed(code, reason)` once the peer answered or the socket closed.
    /// Codes that may not be sent (e.g. 1005, 1006) become 1000. Before the connection opened,
    /// this cancels the attempt (`.failed` with kind `.other`).
    public func close(code: Int = 1000, reason: String = "") {
        core.close(code: code, reason: reason)
    }

    /// Drops the connection at once, without a close frame; reports `.closed(1006, "aborted")`
    /// (or `.failed` with kind `.other` if it had not opened yet).
    public func abort() {
        core.abort()
    }

    /// Sets up, ahead of time, the loop's libwebsockets context and the client TLS configuration
    /// these options need (loading the system CA store alone takes 30-150 ms), so the first
    /// `connect()` does not pay for it. Returns immediately; failures are logged and reported
    /// again by `connect()`.
    public static func prewarm(options: WebSocketOptions, loop: MainLoop = .shared) {
        let secure = options.url.lowercased().hasPrefix("wss:")
        let trust = TLSTrust.forConnection(secure: secure, options: options)
        guard let trust else {
            loop.post { prewarmContext(loop: loop) { _ in } }
            return
        }
        ClientTLSContexts.shared.obtain(trust) { result in
            loop.post {
                prewarmContext(loop: loop) { context in
                    _ = try context.vhost(for: trust, sslContext: result.get())
                }
            }
        }
    }

    /// Creates the loop's lws context (and whatever `then` sets up in it); failures are logged.
    private static func prewarmContext(loop: MainLoop, then: @Sendable (isolated LWSClientContext) throws -> Void) {
        do {
            let context = try LWSClientContext.obtain(loop: loop)
            try context.assumeIsolated { try then($0) }
        } catch {
            Log.warning("transport", "prewarming the WebSocket transport failed: \(error)")
        }
    }
}
