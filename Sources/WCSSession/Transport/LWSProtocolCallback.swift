import CWebSockets

/// The single protocol callback of every context (a capture-less C function). It finds the
/// Swift owner of the wsi and forwards; it runs on the loop thread only.
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
            Unmanaged<LWSClientContext>.fromOpaque(owner).takeUnretainedValue().serviceAll(broadcastVhost: lws_get_vhost(wsi))
        }
        return 0
    }
    guard let opaque = lws_get_opaque_user_data(wsi) else {
        return lws_callback_http_dummy(wsi, reason, user, input, length)
    }
    let connection = Unmanaged<ConnectionCore>.fromOpaque(opaque).takeUnretainedValue()
    let bytes = UnsafeRawBufferPointer(start: input, count: input == nil ? 0 : length)
    switch reason {
    case LWS_CALLBACK_WSI_CREATE:
        connection.tcpConnected(wsi)
    case LWS_CALLBACK_OPENSSL_PERFORM_SERVER_CERT_VERIFICATION:
        // user: X509_STORE_CTX*, in: SSL*, len: OpenSSL's preverify_ok. Return 0 to accept.
        return connection.verifyCertificate(storeContext: user.map(OpaquePointer.init), preverifyOK: length != 0)
    case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
        connection.connectionError(wsi, message: bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self))
    case LWS_CALLBACK_CLIENT_ESTABLISHED:
        connection.established(wsi)
    case LWS_CALLBACK_CLIENT_RECEIVE:
        return connection.received(wsi, bytes)
    case LWS_CALLBACK_CLIENT_WRITEABLE:
        return connection.writeable(wsi)
    case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
        connection.peerInitiatedClose(bytes)
    case LWS_CALLBACK_CLIENT_CLOSED:
        connection.closed(wsi)
    case LWS_CALLBACK_WSI_DESTROY:
        connection.wsiDestroyed(wsi)
    default:
        return lws_callback_http_dummy(wsi, reason, user, input, length)
    }
    return 0
}
