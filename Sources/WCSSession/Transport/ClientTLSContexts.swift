import CSSL
import CWebSockets // ERR_clear_error arrives through libwebsockets.h's OpenSSL includes
import DecimalText
import Dispatch
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import MainLoop
import Synchronization

/// An OpenSSL `SSL_CTX*` that may cross threads (SSL_CTX is thread-safe once configured).
struct SSLContextHandle: @unchecked Sendable { // @unchecked: a raw SSL_CTX*, immutable once built
    let pointer: OpaquePointer
}

/// The client `SSL_CTX` of each `TLSTrust`, built once per process on a background thread.
///
/// Loading the system CA store costs 30 ms to over a second on a busy machine; doing it inside
/// libwebsockets (which builds the SSL_CTX when a vhost is created) would block the loop
/// thread, and with it every other connection and libnice. So the SSL_CTX is built here,
/// off the loop, and handed to lws as `provided_client_ssl_ctx`. The contexts live for the
/// whole process and are shared by every loop.
final class ClientTLSContexts: Sendable {
    static let shared = ClientTLSContexts()

    typealias Completion = @Sendable (Result<SSLContextHandle, WebSocketError>) -> Void

    /// Built contexts and the completions waiting for one being built (any thread).
    private let state = Mutex((ready: [TLSTrust: SSLContextHandle](), waiting: [TLSTrust: [Completion]]()))
    private let queue = DispatchQueue(label: "wcs.transport.tls-setup", attributes: .concurrent)

    /// The context for `trust` if it is already built.
    func cached(_ trust: TLSTrust) -> SSLContextHandle? {
        state.withLock { $0.ready[trust] }
    }

    /// Builds (once) the context for `trust` in the background; `completion` runs on a
    /// background thread, or inline when the context is already built.
    func obtain(_ trust: TLSTrust, completion: @escaping Completion) {
        enum Next { case ready(SSLContextHandle), build, wait }
        let next = state.withLock { state -> Next in
            if let handle = state.ready[trust] { return .ready(handle) }
            let first = state.waiting[trust] == nil
            state.waiting[trust, default: []].append(completion)
            return first ? .build : .wait
        }
        switch next {
        case .ready(let handle): return completion(.success(handle))
        case .wait: return
        case .build: break
        }
        queue.async { [self] in
            let result = Self.build(trust)
            let completions = state.withLock { state in
                if case .success(let handle) = result { state.ready[trust] = handle }
                return state.waiting.removeValue(forKey: trust) ?? []
            }
            completions.forEach { $0(result) }
        }
    }

    /// A client SSL_CTX set up like libwebsockets' own: peer verification is configured per
    /// connection by lws (SSL_VERIFY_PEER, host name), trust anchors come from here.
    static func build(_ trust: TLSTrust) -> Result<SSLContextHandle, WebSocketError> {
        let started = DispatchTime.now()
        if let caFile = trust.caFile, access(caFile, R_OK) != 0 {
            return .failure(WebSocketError(kind: .tls, message: "CA file '\(caFile)' does not exist or is not readable"))
        }
        guard let context = SSL_CTX_new(TLS_client_method()) else {
            return .failure(WebSocketError(kind: .tls, message: "could not create an OpenSSL client context"))
        }
        _ = SSL_CTX_ctrl(context, SSL_CTRL_MODE, Int(SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER | SSL_MODE_RELEASE_BUFFERS), nil)
        TLSSessionCache.install(on: context)
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
        Log.debug("transport", "TLS client context built in \(DecimalText.fixed(milliseconds, decimals: 1)) ms "
                  + "(CAs: \(trust.caFile ?? (trust.insecure ? "none, insecure" : "system")))")
        return .success(SSLContextHandle(pointer: context))
    }
}
