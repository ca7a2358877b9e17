import CWebSockets
import DecimalText
import Dispatch
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import MainLoop
import Synchronization

/// The TLS trust settings a client TLS configuration is built with (one per distinct value).
struct TLSTrust: Hashable, Sendable {
    /// PEM CA bundle replacing the system CAs, or nil for the system CAs.
    let caFile: String?
    /// Accept any server certificate.
    let insecure: Bool

    /// The trust a connection needs: nil for ws:// (no TLS at all).
    static func forConnection(secure: Bool, options: WebSocketOptions) -> TLSTrust? {
        secure ? TLSTrust(caFile: options.caFile, insecure: options.allowInsecureTLS) : nil
    }
}

/// The libwebsockets context of one `MainLoop` (LWS_SERVER_OPTION_GLIB with the loop's
/// GMainLoop as foreign loop), with one client vhost per `TLSTrust`.
///
/// Why one context with vhosts rather than one context per TLS configuration: in lws 4.1.6
/// every context created with LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT re-allocates the process-wide
/// OpenSSL ex_data index lws uses to find the wsi of an SSL object, so creating another TLS
/// context breaks certificate verification of handshakes already in flight (reproduced as
/// sporadic TLS failures). The context is therefore created without that option (the index
/// stays at OpenSSL's reserved app-data slot 0) and each TLS configuration gets its own vhost
/// around a client SSL_CTX that `ClientTLSContexts` built off the loop thread.
///
/// Runs on: its loop. It is an actor whose executor is the loop, so the compiler keeps it there:
/// created, used and destroyed on the loop thread (C callbacks and the connections, which share
/// the executor, enter with `assumeIsolated`); other threads may only call the nonisolated
/// `cancelService()`. The context and its vhosts are cached until the loop stops.
actor LWSClientContext {
    /// The lws_context*; nil once destroyed.
    private(set) var handle: OpaquePointer?
    /// The vhost of ws:// connections (created with the context, no TLS).
    private var plainVhost: OpaquePointer?
    /// One vhost per TLS configuration, created on first use.
    private var tlsVhosts: [TLSTrust: OpaquePointer] = [:]
    /// Live connections, for the broadcast EVENT_WAIT_CANCELLED (loop-confined).
    private var connections: [ObjectIdentifier: ConnectionCore] = [:]
    /// The address of the handle `cancelService()` may use from other threads (kept as an
    /// integer, which is Sendable); 0 before creation and once destruction began.
    private nonisolated let cancellable = Mutex<Int>(0)

    // lws keeps pointers to these for the context's lifetime.
    private let protocols: UnsafeMutablePointer<lws_protocols>
    private let protocolName: UnsafeMutablePointer<CChar>
    private let foreignLoops: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    /// The loop this context belongs to (its executor).
    nonisolated let loop: MainLoop
    private var vhostNames: [UnsafeMutablePointer<CChar>] = []

    private init(loop: MainLoop) {
        self.loop = loop
        protocolName = strdup("wcs-transport")!
        protocols = .allocate(capacity: 2)
        protocols.initialize(repeating: lws_protocols(), count: 2) // [ours, zeroed terminator]
        protocols[0].name = UnsafePointer(protocolName)
        protocols[0].callback = lwsProtocolCallback
        protocols[0].rx_buffer_size = 16384
        foreignLoops = .allocate(capacity: 1)
        foreignLoops.initialize(to: nil)
    }

    /// Frees the protocol table and names on the loop (they belong to the context's isolation).
    isolated deinit {
        protocols.deinitialize(count: 2)
        protocols.deallocate()
        foreignLoops.deallocate()
        free(protocolName)
        vhostNames.forEach { free($0) }
    }

    // MARK: - Creation (loop thread)

    /// The loop is this actor's executor.
    nonisolated var unownedExecutor: UnownedSerialExecutor { loop.asUnownedSerialExecutor() }

    /// The context of `loop`, created on first use. Loop thread only (checked at run time).
    static func obtain(loop: MainLoop) throws -> LWSClientContext {
        if let existing = LWSContextCache.shared.context(loop: loop) { return existing }
        let context = LWSClientContext(loop: loop)
        try context.assumeIsolated { try $0.create() }
        guard LWSContextCache.shared.insert(context, loop: loop) else {
            context.assumeIsolated { $0.destroy() }
            throw WebSocketError(kind: .other, message: "the main loop '\(loop.name)' is stopping")
        }
        return context
    }

    private func create() throws {
        LWSLogBridge.install()
        foreignLoops.pointee = UnsafeMutableRawPointer(loop.loop)

        var info = lws_context_creation_info()
        info.port = CONTEXT_PORT_NO_LISTEN
        info.protocols = UnsafePointer(protocols)
        info.options = UInt64(LWS_SERVER_OPTION_GLIB) // no DO_SSL_GLOBAL_INIT here: see the type's doc
        info.foreign_loops = foreignLoops
        info.user = Unmanaged.passUnretained(self).toOpaque()
        // Our own timer enforces connectTimeout; keep lws's timeouts out of its way.
        info.timeout_secs = 300
        info.connect_timeout_secs = 300
        info.gid = -1
        info.uid = -1

        let started = DispatchTime.now()
        guard let created = lws_create_context(&info) else {
            throw WebSocketError(kind: .other, message: "could not create the libwebsockets client context (see the lws log)")
        }
        handle = created
        cancellable.withLock { $0 = Int(bitPattern: UnsafeRawPointer(created)) }
        plainVhost = lws_get_vhost_by_name(created, "default")
        Log.debug("transport", "lws context created in \(Self.formatMilliseconds(since: started)) ms")
    }

    /// The vhost of connections without TLS.
    var plainClientVhost: OpaquePointer? { plainVhost }

    /// The vhost of `trust`, created on first use around `sslContext` (built off the loop by
    /// `ClientTLSContexts`); creating it is cheap.
    func vhost(for trust: TLSTrust, sslContext: SSLContextHandle) throws -> OpaquePointer {
        if let existing = tlsVhosts[trust] { return existing }
        guard let handle else {
            throw WebSocketError(kind: .other, message: "the libwebsockets context is already destroyed")
        }
        let name = strdup("tls-\(tlsVhosts.count)")!
        vhostNames.append(name) // lws keeps the name pointer
        var info = lws_context_creation_info()
        info.port = CONTEXT_PORT_NO_LISTEN
        info.protocols = UnsafePointer(protocols)
        info.vhost_name = UnsafePointer(name)
        // Needed for lws to take the client SSL_CTX at all; on a vhost it does not redo the
        // global init (see the type's doc).
        info.options = UInt64(LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT)
        info.provided_client_ssl_ctx = sslContext.pointer
        info.connect_timeout_secs = 300
        guard let vhost = lws_create_vhost(handle, &info) else {
            throw WebSocketError(kind: .tls, message: "could not set up a TLS client vhost (see the lws log)")
        }
        tlsVhosts[trust] = vhost
        return vhost
    }

    private static func formatMilliseconds(since start: DispatchTime) -> String {
        DecimalText.fixed(Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e6, decimals: 1)
    }

    // MARK: - Connections (loop thread)

    func register(_ connection: ConnectionCore) {
        connections[ObjectIdentifier(connection)] = connection
    }

    func unregister(_ connection: ConnectionCore) {
        connections[ObjectIdentifier(connection)] = nil
    }

    /// EVENT_WAIT_CANCELLED, which lws broadcasts once per vhost: act on the plain vhost's copy
    /// only, and let every live connection pick up what other threads asked for.
    func serviceAll(broadcastVhost: OpaquePointer?) {
        guard broadcastVhost == nil || broadcastVhost == plainVhost else { return }
        for connection in Array(connections.values) {
            connection.assumeIsolated { _ = $0.serviceRequests(insideCallback: true) }
        }
    }

    // MARK: - Any thread

    /// Wakes the loop thread's lws service (the only lws call allowed off the loop thread).
    nonisolated func cancelService() {
        cancellable.withLock { address in
            if let handle = OpaquePointer(bitPattern: address) { lws_cancel_service(handle) }
        }
    }

    // MARK: - Teardown (loop thread)

    /// Closes every connection and frees the context (the loop is stopping).
    func destroy() {
        cancellable.withLock { $0 = 0 }
        guard let handle else { return }
        lws_context_destroy(handle)
        self.handle = nil
        plainVhost = nil
        tlsVhosts.removeAll()
        for connection in Array(connections.values) {
            connection.assumeIsolated { $0.contextDestroyed() }
        }
        connections.removeAll()
    }
}

/// The context of every loop that has one. A loop's context is destroyed by its stop handler.
final class LWSContextCache: Sendable {
    static let shared = LWSContextCache()

    private let contexts = Mutex<[ObjectIdentifier: LWSClientContext]>([:])

    func context(loop: MainLoop) -> LWSClientContext? {
        contexts.withLock { $0[ObjectIdentifier(loop)] }
    }

    /// Caches `context` until `loop` stops; false if the loop is already stopping.
    func insert(_ context: LWSClientContext, loop: MainLoop) -> Bool {
        let loopID = ObjectIdentifier(loop)
        let registered = loop.addStopHandler { [self] in
            let doomed = contexts.withLock { $0.removeValue(forKey: loopID) }
            doomed?.assumeIsolated { $0.destroy() } // stop handlers run on the loop thread
        }
        guard registered else { return false }
        contexts.withLock { $0[loopID] = context }
        return true
    }
}

/// An lws pointer (context, vhost) handed between the context and connection actors, which share
/// the loop executor; kept as an integer address so it is Sendable without `@unchecked`.
struct LWSPointer: Sendable {
    let address: Int
    init(_ pointer: OpaquePointer) { address = Int(bitPattern: UnsafeRawPointer(pointer)) }
    var pointer: OpaquePointer { OpaquePointer(bitPattern: address)! }
}

/// Calls `body` with a C string for `string`, or nil.
func withOptionalCString<R>(_ string: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
    guard let string else { return body(nil) }
    return string.withCString { body($0) }
}
