import CSSL
import CWebSockets // ERR_clear_error arrives through libwebsockets.h's OpenSSL includes
import Foundation
import MainLoop

/// An OpenSSL `SSL_CTX*` that may cross threads (SSL_CTX is thread-safe once configured).
struct SSLContextHandle: @unchecked Sendable {
    let pointer: OpaquePointer
}

/// The client `SSL_CTX` of each `TLSTrust`, built once per process on a background thread.
///
/// Loading the system CA store costs 30 ms to over a second on a busy machine; doing it inside
/// libwebsockets (which builds the SSL_CTX when a vhost is created) would block the loop
/// thread, and with it every other connection and libnice. So the SSL_CTX is built here,
/// off the loop, and handed to lws as `provided_client_ssl_ctx`. The contexts live for the
/// whole process and are shared by every loop.
final class ClientTLSContexts: @unchecked Sendable {
    static let shared = ClientTLSContexts()

    typealias Completion = @Sendable (Result<SSLContextHandle, WebSocketError>) -> Void

    private let lock = NSLock()
    private var ready: [TLSTrust: SSLContextHandle] = [:]
    private var waiting: [TLSTrust: [Completion]] = [:]
    private let queue = DispatchQueue(label: "wcs.transport.tls-setup", attributes: .concurrent)

    /// The context for `trust` if it is already built.
    func cached(_ trust: TLSTrust) -> SSLContextHandle? {
        lock.lock(); defer { lock.unlock() }
        return ready[trust]
    }

    /// Builds (once) the context for `trust` in the background; `completion` runs on a
    /// background thread, or inline when the context is already built.
    func obtain(_ trust: TLSTrust, completion: @escaping Completion) {
        lock.lock()
        if let handle = ready[trust] {
            lock.unlock()
            return completion(.success(handle))
        }
        let first = waiting[trust] == nil
        waiting[trust, default: []].append(completion)
        lock.unlock()
        guard first else { return }
        queue.async { [self] in
            let result = Self.build(trust)
            lock.lock()
            if case .success(let handle) = result { ready[trust] = handle }
            let completions = waiting.removeValue(forKey: trust) ?? []
            lock.unlock()
            completions.forEach { $0(result) }
        }
    }

    /// A client SSL_CTX set up like libwebsockets' own: peer verification is configured per
    /// connection by lws (SSL_VERIFY_PEER, host name), trust anchors come from here.
    static func build(_ trust: TLSTrust) -> Result<SSLContextHandle, WebSocketError> {
        let started = DispatchTime.now()
        if let caFile = trust.caFile, !FileManager.default.isReadableFile(atPath: caFile) {
            return .failure(WebSocketError(kind: .tls, message: "CA file '\(caFile)' does not exist or is not readable"))
        }
        guard let context = SSL_CTX_new(TLS_client_method()) else {
            return .failure(WebSocketError(kind: .tls, message: "could not create an OpenSSL client context"))
        }
        _ = SSL_CTX_ctrl(context, SSL_CTRL_MODE, Int(SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER | SSL_MODE_RELEASE_BUFFERS), nil)
        ERR_clear_error()
        if let caFile = trust.caFile {
            guard SSL_CTX_load_verify_locations(context, caFile, nil) == 1 else {
                ERR_clear_error()
                SSL_CTX_free(context)
                return .failure(WebSocketError(kind: .tls, message: "CA file '\(caFile)' holds no usable PEM certificate"))
            }
        } else if !trust.insecure {
            guard SSL_CTX_set_default_verify_paths(context) == 1 else {
                ERR_clear_error()
                SSL_CTX_free(context)
                return .failure(WebSocketError(kind: .tls, message: "could not load the system CA certificates"))
            }
        }
        let milliseconds = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e6
        Log.debug("transport", "TLS client context built in \(String(format: "%.1f", milliseconds)) ms "
                  + "(CAs: \(trust.caFile ?? (trust.insecure ? "none, insecure" : "system")))")
        return .success(SSLContextHandle(pointer: context))
    }
}
