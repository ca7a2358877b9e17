import CSSL
import CWebSockets
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// TLS session resumption for wss:// (libwebsockets 4.1 has no session API of its own): the last
/// session each server gave us is kept in memory and offered on the next connection to it, so a
/// wake's handshake is a resumption (no certificate chain to send and verify, one round trip with
/// TLS 1.3) instead of a full handshake.
///
/// How, on the client `SSL_CTX`s `ClientTLSContexts` builds: OpenSSL's new-session callback keeps
/// each new session (TLS 1.3 tickets arrive after the handshake), and the context's info callback
/// sets the kept session on a connection's `SSL` at `SSL_CB_HANDSHAKE_START`, inside lws's
/// `SSL_connect`, before the ClientHello is written (lws gives no hook between `SSL_new` and the
/// handshake; it sets no per-`SSL` info callback of its own unless asked to).
///
/// Sessions are kept per context (so per trust setting: an insecure context's sessions never reach
/// a verifying one), server name (SNI) and peer address and port. Verification stays on: a session
/// carries the verification result of the full handshake that made it, and a server that does not
/// accept the session (restarted, another node, a changed certificate) gets a full handshake with
/// the usual checks.
///
/// Runs on: the callbacks run on whichever thread drives the handshake (the loop thread); the table
/// is behind a `Mutex`.
enum TLSSessionCache {
    /// An `SSL_SESSION*` this table holds one reference to.
    private struct Held: @unchecked Sendable { // @unchecked: a raw SSL_SESSION*, only swapped under the lock
        let pointer: OpaquePointer
    }

    private static let sessions = Mutex([String: Held]())

    /// Sets up resumption on a client context; call once, before any connection uses it.
    static func install(on context: OpaquePointer) {
        _ = SSL_CTX_ctrl(context, SSL_CTRL_SET_SESS_CACHE_MODE,
                         Int(SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE), nil)
        SSL_CTX_sess_set_new_cb(context) { ssl, session in
            if let ssl, let session { TLSSessionCache.keep(session, from: ssl) }
            return 0  // OpenSSL keeps its reference; the table holds a copy
        }
        SSL_CTX_set_info_callback(context) { ssl, where_, _ in
            guard let ssl, where_ & SSL_CB_HANDSHAKE_START != 0 else { return }
            TLSSessionCache.offer(to: ssl)
        }
    }

    /// Keeps a copy of `session` in place of the one before. A copy, because OpenSSL marks the
    /// connection's own session object not resumable when the socket closes without a TLS
    /// close_notify (as lws closes it); since TLS 1.1 an unclean close need not end a session.
    private static func keep(_ session: OpaquePointer, from ssl: OpaquePointer) {
        guard let key = key(of: ssl), let copy = SSL_SESSION_dup(session) else { return }
        let old = sessions.withLock { $0.updateValue(Held(pointer: copy), forKey: key) }
        if let old { SSL_SESSION_free(old.pointer) }
    }

    /// Sets the kept session on a connection that has not started its first handshake.
    private static func offer(to ssl: OpaquePointer) {
        guard SSL_in_before(ssl) != 0, let key = key(of: ssl) else { return }
        sessions.withLock { table in
            // SSL_set_session takes its own reference; the table keeps its one.
            if let held = table[key] { _ = SSL_set_session(ssl, held.pointer) }
        }
    }

    /// Context, server name and peer of a connection's socket; nil when it has no connected socket.
    private static func key(of ssl: OpaquePointer) -> String? {
        guard let context = SSL_get_SSL_CTX(ssl) else { return nil }
        let fd = SSL_get_fd(ssl)
        guard fd >= 0, let path = SocketPath.of(socket: fd) else { return nil }
        let name = SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name).map { String(cString: $0) } ?? ""
        return "\(UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(context))))|\(name)|\(path.peerAddress)|\(path.peerPort)"
    }
}
