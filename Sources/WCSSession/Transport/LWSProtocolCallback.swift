import CWebSockets

/// The single protocol callback of every context (a capture-less C function). It finds the
/// Swift owner of the wsi and forwards; lws calls it on the loop thread only, so it enters the
/// owner's isolation (an actor on the loop executor) with `assumeIsolated`, which checks that.
///
/// - Connection callbacks find their `ConnectionCore` through the wsi's opaque user data,
///   which is set before any callback for that wsi.
/// - EVENT_WAIT_CANCELLED arrives with a pseudo wsi and no user data; it is routed to the
///   context (through `lws_context_user`), which services its own connection registry.
let lwsProtocolCallback: @convention(c) (OpaquePointer?, lws_callback_reasons, UnsafeMutableRawPointer?,
                                         UnsafeMutableRawPointer?, Int) -> Int32 = { wsi, reason, user, input, length in
    guard let wsi else { return 0 }
    if reason == LWS_CALLBACK_EVENT_WAIT_CANCELLED {
        if let context = lws_get_context(wsi), let owner = lws_context_user(context) {
            let vhost = lws_get_vhost(wsi).map(LWSPointer.init)
            Unmanaged<LWSClientContext>.fromOpaque(owner).takeUnretainedValue().assumeIsolated {
                $0.serviceAll(broadcastVhost: vhost?.pointer)
            }
        }
        return 0
    }
    guard let opaque = lws_get_opaque_user_data(wsi) else {
        return lws_callback_http_dummy(wsi, reason, user, input, length)
    }
    let connection = Unmanaged<ConnectionCore>.fromOpaque(opaque).takeUnretainedValue()
    let event = LWSCallbackEvent(wsi: wsi, user: user, input: input, length: length)
    return connection.assumeIsolated { $0.handle(reason.rawValue, event) } ?? lws_callback_http_dummy(wsi, reason, user, input, length)
}

/// The arguments of one lws callback, carried into the connection's isolation. The pointers are
/// kept as integer addresses (Sendable); they are only used during the callback, on the loop.
struct LWSCallbackEvent: Sendable {
    let wsiAddress: Int
    let userAddress: Int
    let inputAddress: Int
    let length: Int

    init(wsi: OpaquePointer, user: UnsafeMutableRawPointer?, input: UnsafeMutableRawPointer?, length: Int) {
        wsiAddress = Int(bitPattern: UnsafeRawPointer(wsi))
        userAddress = Int(bitPattern: user)
        inputAddress = Int(bitPattern: input)
        self.length = length
    }

    var wsi: OpaquePointer { OpaquePointer(bitPattern: wsiAddress)! }
    var user: UnsafeMutableRawPointer? { UnsafeMutableRawPointer(bitPattern: userAddress) }
    var bytes: UnsafeRawBufferPointer {
        let input = UnsafeRawPointer(bitPattern: inputAddress)
        return UnsafeRawBufferPointer(start: input, count: input == nil ? 0 : length)
    }
}

extension ConnectionCore {
    /// Dispatches one lws callback on the loop; nil means "not ours: let lws's default handler answer".
    func handle(_ rawReason: UInt32, _ event: LWSCallbackEvent) -> Int32? {
        let wsi = event.wsi
        switch lws_callback_reasons(rawValue: rawReason) {
        case LWS_CALLBACK_WSI_CREATE:
            tcpConnected(wsi)
        case LWS_CALLBACK_OPENSSL_PERFORM_SERVER_CERT_VERIFICATION:
            // user: X509_STORE_CTX*, in: SSL*, len: OpenSSL's preverify_ok. Return 0 to accept.
            return verifyCertificate(storeContext: event.user.map(OpaquePointer.init), preverifyOK: event.length != 0)
        case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
            let bytes = event.bytes
            connectionError(wsi, message: bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self))
        case LWS_CALLBACK_CLIENT_ESTABLISHED:
            established(wsi)
        case LWS_CALLBACK_CLIENT_RECEIVE:
            return received(wsi, event.bytes)
        case LWS_CALLBACK_CLIENT_WRITEABLE:
            return writeable(wsi)
        case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
            peerInitiatedClose(event.bytes)
        case LWS_CALLBACK_CLIENT_CLOSED:
            closed(wsi)
        case LWS_CALLBACK_WSI_DESTROY:
            wsiDestroyed(wsi)
        default:
            return nil
        }
        return 0
    }
}
