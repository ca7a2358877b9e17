import CSSL
import CWebSockets
import Foundation
import MainLoop

/// The TLS trust settings a libwebsockets context is built with (one context per distinct value).
struct TLSTrust: Hashable, Sendable {
    /// Whether the context sets up client TLS at all.
    let usesTLS: Bool
    /// PEM CA bundle replacing the system CAs, or nil for the system CAs.
    let caFile: String?
    /// Accept any server certificate.
    let insecure: Bool

    /// For wss:// connections.
    init(caFile: String?, insecure: Bool) {
        usesTLS = true
        self.caFile = caFile
        self.insecure = insecure
    }

    private init() {
        usesTLS = false
        caFile = nil
        insecure = false
    }

    /// For ws:// connections: no TLS, so no OpenSSL context and no CA store to load
    /// (loading the system CAs is most of a TLS context's creation cost).
    static let plain = TLSTrust()

    /// The trust a connection to `url` needs.
    static func forConnection(secure: Bool, options: WebSocketOptions) -> TLSTrust {
        secure ? TLSTrust(caFile: options.caFile, insecure: options.allowInsecureTLS) : .plain
    }
}

/// One libwebsockets context, driven by one `MainLoop` (LWS_SERVER_OPTION_GLIB with the loop's
/// GMainLoop as foreign loop) and built for one `TLSTrust`.
///
/// Created, used and destroyed on the loop thread only; other threads may only call
/// `cancelService()`. Creating one costs tens of milliseconds (OpenSSL init, CA store), so
/// contexts are cached per (loop, trust) and live until the loop stops.
final class LWSClientContext: @unchecked Sendable {
    let trust: TLSTrust
    /// The lws_context*; nil once destroyed.
    private(set) var handle: OpaquePointer?
    /// Live connections, for the broadcast EVENT_WAIT_CANCELLED (loop-confined).
    private var connections: [ObjectIdentifier: ConnectionCore] = [:]
    /// Guards `handle` for `cancelService()` against destruction.
    private let lock = NSLock()
    private var destroyed = false

    // lws keeps pointers to these for the context's lifetime.
    private let protocols: UnsafeMutablePointer<lws_protocols>
    private let protocolName: UnsafeMutablePointer<CChar>
    private let foreignLoops: UnsafeMutablePointer<UnsafeMutableRawPointer?>

    private init(trust: TLSTrust) {
        self.trust = trust
        protocolName = strdup("wcs-transport")!
        protocols = .allocate(capacity: 2)
        protocols.initialize(repeating: lws_protocols(), count: 2) // [ours, zeroed terminator]
        protocols[0].name = UnsafePointer(protocolName)
        protocols[0].callback = lwsProtocolCallback
        protocols[0].rx_buffer_size = 16384
        foreignLoops = .allocate(capacity: 1)
        foreignLoops.initialize(to: nil)
    }

    deinit {
        protocols.deinitialize(count: 2)
        protocols.deallocate()
        foreignLoops.deallocate()
        free(protocolName)
    }

    // MARK: - Cache

    /// The context for `trust` on `loop`, created on first use. Loop thread only.
    static func obtain(trust: TLSTrust, loop: MainLoop) throws -> LWSClientContext {
        if let existing = LWSContextCache.shared.context(trust: trust, loop: loop) { return existing }
        let context = try create(trust: trust, loop: loop)
        LWSContextCache.shared.insert(context, loop: loop)
        return context
    }

    private static func create(trust: TLSTrust, loop: MainLoop) throws -> LWSClientContext {
        LWSLogBridge.install()
        if let caFile = trust.caFile { try validateCAFile(caFile) }
        let box = LWSClientContext(trust: trust)
        box.foreignLoops.pointee = UnsafeMutableRawPointer(loop.loop)

        var info = lws_context_creation_info()
        info.port = CONTEXT_PORT_NO_LISTEN
        info.protocols = UnsafePointer(box.protocols)
        var options = LWS_SERVER_OPTION_GLIB
        if trust.usesTLS { options |= LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT }
        if trust.caFile != nil { options |= LWS_SERVER_OPTION_DISABLE_OS_CA_CERTS }
        info.options = UInt64(options)
        info.foreign_loops = box.foreignLoops
        info.user = Unmanaged.passUnretained(box).toOpaque()
        // Our own timer enforces connectTimeout; keep lws's timeouts out of its way.
        info.timeout_secs = 300
        info.connect_timeout_secs = 300
        info.gid = -1
        info.uid = -1

        let started = DispatchTime.now()
        let handle: OpaquePointer? = withOptionalCString(trust.caFile) { caPath in
            info.client_ssl_ca_filepath = caPath
            return lws_create_context(&info)
        }
        guard let handle else {
            throw WebSocketError(kind: .other, message: "could not create the libwebsockets client context (see the lws log)")
        }
        box.handle = handle
        let milliseconds = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e6
        Log.debug("transport", "lws context created in \(String(format: "%.1f", milliseconds)) ms "
                  + (trust.usesTLS ? "(TLS, CAs: \(trust.caFile ?? "system"), insecure: \(trust.insecure))" : "(no TLS)"))
        return box
    }

    /// Fails early, with a clear message, when the CA bundle cannot be used.
    private static func validateCAFile(_ path: String) throws {
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw WebSocketError(kind: .tls, message: "CA file '\(path)' does not exist or is not readable")
        }
        guard let sslContext = SSL_CTX_new(TLS_client_method()) else {
            throw WebSocketError(kind: .tls, message: "could not create an OpenSSL context to check '\(path)'")
        }
        defer { SSL_CTX_free(sslContext) }
        ERR_clear_error()
        guard SSL_CTX_load_verify_locations(sslContext, path, nil) == 1 else {
            ERR_clear_error()
            throw WebSocketError(kind: .tls, message: "CA file '\(path)' holds no usable PEM certificate")
        }
    }

    // MARK: - Connections (loop thread)

    func register(_ connection: ConnectionCore) {
        connections[ObjectIdentifier(connection)] = connection
    }

    func unregister(_ connection: ConnectionCore) {
        connections[ObjectIdentifier(connection)] = nil
    }

    /// EVENT_WAIT_CANCELLED: let every live connection pick up what other threads asked for.
    func serviceAll() {
        for connection in Array(connections.values) {
            connection.serviceRequests(insideCallback: true)
        }
    }

    // MARK: - Any thread

    /// Wakes the loop thread's lws service (the only lws call allowed off the loop thread).
    func cancelService() {
        lock.lock(); defer { lock.unlock() }
        guard !destroyed, let handle else { return }
        lws_cancel_service(handle)
    }

    // MARK: - Teardown (loop thread)

    /// Closes every connection and frees the context (the loop is stopping).
    func destroy() {
        lock.lock()
        destroyed = true
        let handle = self.handle
        lock.unlock()
        guard let handle else { return }
        lws_context_destroy(handle)
        self.handle = nil
        for connection in Array(connections.values) {
            connection.contextDestroyed()
        }
        connections.removeAll()
    }
}

/// Every live context, per loop. A loop's contexts are destroyed by its stop handler.
final class LWSContextCache: @unchecked Sendable {
    static let shared = LWSContextCache()

    private struct Key: Hashable {
        let loop: ObjectIdentifier
        let trust: TLSTrust
    }

    private let lock = NSLock()
    private var contexts: [Key: LWSClientContext] = [:]
    private var loopsWithStopHandler: Set<ObjectIdentifier> = []

    func context(trust: TLSTrust, loop: MainLoop) -> LWSClientContext? {
        lock.lock(); defer { lock.unlock() }
        return contexts[Key(loop: ObjectIdentifier(loop), trust: trust)]
    }

    func insert(_ context: LWSClientContext, loop: MainLoop) {
        let loopID = ObjectIdentifier(loop)
        lock.lock()
        contexts[Key(loop: loopID, trust: context.trust)] = context
        let needsHandler = loopsWithStopHandler.insert(loopID).inserted
        lock.unlock()
        if needsHandler {
            loop.addStopHandler { [self] in destroyAll(loop: loopID) }
        }
    }

    /// Runs on the stopping loop's thread.
    private func destroyAll(loop: ObjectIdentifier) {
        lock.lock()
        let keys = contexts.keys.filter { $0.loop == loop }
        let doomed = keys.compactMap { contexts.removeValue(forKey: $0) }
        loopsWithStopHandler.remove(loop)
        lock.unlock()
        for context in doomed { context.destroy() }
    }
}

/// Calls `body` with a C string for `string`, or nil.
func withOptionalCString<R>(_ string: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
    guard let string else { return body(nil) }
    return string.withCString { body($0) }
}
