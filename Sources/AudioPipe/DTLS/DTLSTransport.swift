import AudioSDP
import CSSL
import MainLoop

/// One DTLS 1.2 association with `use_srtp` for a call (RFC 5764), over datagrams the owner carries.
///
/// The owner (the ICE layer) passes every received DTLS datagram to `receive(_:)`, sends every
/// datagram handed to the `send` closure, and runs a timer: after `nextTimeout` seconds it calls
/// `handleTimeout()` so lost flights are retransmitted (RFC 6347 §4.2.4). After the handshake the
/// peer certificate is checked against the fingerprint from the peer's SDP and `onEvent` reports
/// `.connected` with the SRTP keys, or `.failed`. Later `.closed` reports the peer's close_notify.
///
/// **Not thread-safe, by design:** create it and call every method from one thread (the event loop
/// thread). `send` and `onEvent` are called synchronously on that thread, after OpenSSL returns, at
/// the end of the method that produced them; they may call back into the transport.
public final class DTLSTransport {
    /// Where the association stands.
    public enum State: Sendable, Equatable {
        /// Created; `start()` not called yet (received datagrams are kept for it).
        case idle
        /// Handshake in progress.
        case connecting
        /// Handshake done, peer fingerprint verified, SRTP keys exported.
        case connected(SRTPKeyMaterial)
        /// Handshake or connection failed; nothing more happens.
        case failed(DTLSError)
        /// Closed by `close()` or by the peer's close_notify.
        case closed
    }

    /// What `onEvent` reports: each happens at most once, and only one of them ends the transport.
    public enum Event: Sendable, Equatable {
        /// The handshake succeeded; protect/unprotect SRTP with these keys.
        case connected(SRTPKeyMaterial)
        /// The handshake or the connection failed.
        case failed(DTLSError)
        /// The association ended (peer's close_notify, or our `close()`).
        case closed
    }

    /// Our handshake role (from SDP `a=setup`).
    public let role: DTLSRole
    /// The fingerprint the peer's certificate must have.
    public let remoteFingerprint: DTLSFingerprint
    /// The current state.
    public private(set) var state: State = .idle
    /// Called with each event, on the owner's thread.
    public var onEvent: ((Event) -> Void)?
    /// The negotiated cipher suite once connected (e.g. `ECDHE-ECDSA-AES128-GCM-SHA256`).
    public private(set) var cipherSuite: String?

    private let send: ([UInt8]) -> Void
    private let sslContext: OpaquePointer
    private let ssl: OpaquePointer
    private let channel: DatagramChannel
    private let callbacks: DTLSCallbackContext
    private var pendingEvents: [Event] = []

    /// Creates a transport; nothing is sent before `start()`.
    /// - Parameters:
    ///   - role: `.client` sends the ClientHello (our SDP says `a=setup:active`), `.server` waits.
    ///   - certificate: our identity; its fingerprint goes into our SDP.
    ///   - remoteFingerprint: from the peer's SDP `a=fingerprint` (sha-1/256/384/512).
    ///   - profiles: SRTP profiles offered in preference order (default GCM, then AES-CM).
    ///   - mtu: largest datagram sent (DTLS link MTU), 256...65507; default 1200.
    ///   - retransmission: handshake retransmission timer policy (default RFC 6347: 1 s .. 60 s).
    ///   - send: sends one datagram to the peer.
    /// - Throws: `DTLSError.setupFailed` for a bad parameter or when OpenSSL refuses the setup.
    public init(
        role: DTLSRole,
        certificate: DTLSCertificate,
        remoteFingerprint: DTLSFingerprint,
        profiles: [SRTPProfile] = SRTPProfile.preferredOrder,
        mtu: Int = 1200,
        retransmission: DTLSRetransmissionPolicy = .rfc6347,
        send: @escaping ([UInt8]) -> Void
    ) throws(DTLSError) {
        guard (256...65_507).contains(mtu) else { throw .setupFailed("MTU \(mtu) outside 256...65507") }
        let context = try DTLSContextFactory.make(certificate: certificate, profiles: profiles)
        let channel = DatagramChannel(mtu: mtu)
        guard let ssl = SSL_new(context), let bio = DatagramBIO.make(channel: channel) else {
            SSL_CTX_free(context)
            throw .setupFailed(OpenSSLErrorQueue.takeReason(fallback: "SSL_new or BIO_new failed"))
        }
        SSL_set_bio(ssl, bio, bio)  // one reference, owned by the SSL from now on
        guard cssl_dtls_set_link_mtu(ssl, mtu) > 0 else {
            SSL_free(ssl)
            SSL_CTX_free(context)
            throw .setupFailed("OpenSSL refused link MTU \(mtu)")
        }
        self.role = role
        self.remoteFingerprint = remoteFingerprint
        self.send = send
        self.sslContext = context
        self.ssl = ssl
        self.channel = channel
        self.callbacks = DTLSCallbackContext(expectedFingerprint: remoteFingerprint, retransmission: retransmission)
        callbacks.attach(to: ssl)
        DTLS_set_timer_cb(ssl, dtlsTimerCallback)
        if role == .client { SSL_set_connect_state(ssl) } else { SSL_set_accept_state(ssl) }
    }

    deinit {
        SSL_free(ssl)  // frees the BIO, which releases the channel
        SSL_CTX_free(sslContext)
    }

    /// Starts the handshake: a client sends its ClientHello; a server processes any ClientHello
    /// received so far. Calling it again does nothing.
    public func start() {
        guard case .idle = state else { return }
        state = .connecting
        Log.debug("dtls", "starting handshake as \(role)")
        continueHandshake()
        finishOperation()
    }

    /// Feeds one datagram received from the peer. Garbage is dropped by OpenSSL, empty datagrams
    /// here; after failure or close datagrams are ignored. Before `start()` up to 64 are kept for it.
    public func receive(_ datagram: [UInt8]) {
        guard !datagram.isEmpty else { return }  // a 0-byte BIO read would look like EOF to OpenSSL
        switch state {
        case .failed, .closed:
            return
        case .idle, .connecting, .connected:
            guard channel.enqueueIncoming(datagram) else {
                Log.warning("dtls", "receive queue full, dropping a \(datagram.count)-byte datagram")
                return
            }
        }
        switch state {
        case .connecting: continueHandshake()
        case .connected: readAfterHandshake()
        default: break
        }
        finishOperation()
    }

    /// Seconds until `handleTimeout()` should be called (0 when already due), or nil when no
    /// retransmission timer runs (before start, after the handshake, after failure or close).
    public var nextTimeout: Double? {
        guard case .connecting = state else { return nil }
        var left = timeval()
        guard cssl_dtls_get_timeout(ssl, &left) == 1 else { return nil }
        return Double(left.tv_sec) + Double(left.tv_usec) / 1_000_000
    }

    /// Retransmits the last flight if its timer expired (does nothing otherwise). Fails the
    /// transport when OpenSSL gives up after too many timeouts.
    public func handleTimeout() {
        guard case .connecting = state else { return }
        OpenSSLErrorQueue.clear()
        if cssl_dtls_handle_timeout(ssl) < 0 {
            fail(.protocolFailure(reason: OpenSSLErrorQueue.takeReason(fallback: "handshake timed out")))
        }
        finishOperation()
    }

    /// Sends close_notify (when connected) and ends the transport with `.closed`. Idempotent.
    public func close() {
        switch state {
        case .failed, .closed:
            return
        case .connected:
            OpenSSLErrorQueue.clear()
            SSL_shutdown(ssl)
            OpenSSLErrorQueue.clear()
        case .idle, .connecting:
            break
        }
        end(failure: nil)
        finishOperation()
    }

    // MARK: - Handshake

    private func continueHandshake() {
        OpenSSLErrorQueue.clear()
        let result = SSL_do_handshake(ssl)
        guard result == 1 else {
            let code = SSL_get_error(ssl, result)
            if code == SSL_ERROR_WANT_READ || code == SSL_ERROR_WANT_WRITE { return }
            fail(handshakeError(code: code))
            return
        }
        switch completedHandshakeKeys() {
        case let .success(keys):
            cipherSuite = SSL_get_current_cipher(ssl).flatMap { SSL_CIPHER_get_name($0) }.map { String(cString: $0) }
            Log.info("dtls", "connected as \(role): \(keys.profile.name), \(cipherSuite ?? "?")")
            state = .connected(keys)
            pendingEvents.append(.connected(keys))
            readAfterHandshake()
        case let .failure(error):
            SSL_shutdown(ssl)  // tell the peer, which otherwise believes the handshake succeeded
            fail(error)
        }
    }

    /// Verifies the peer certificate against the SDP fingerprint and exports the SRTP keys.
    private func completedHandshakeKeys() -> Result<SRTPKeyMaterial, DTLSError> {
        guard let peer = SSL_get1_peer_certificate(ssl) else {
            return .failure(.protocolFailure(reason: "peer sent no certificate"))
        }
        defer { X509_free(peer) }
        guard callbacks.accepts(certificate: peer) else {
            logMismatch()
            return .failure(.fingerprintMismatch)
        }
        guard let selected = SSL_get_selected_srtp_profile(ssl),
              let profile = SRTPProfile(rawValue: UInt16(truncatingIfNeeded: selected.pointee.id)) else {
            return .failure(.protocolFailure(reason: "no SRTP profile negotiated"))
        }
        let label = "EXTRACTOR-dtls_srtp"
        var exported = [UInt8](repeating: 0, count: SRTPKeyMaterial.exportLength(for: profile))
        let status = SSL_export_keying_material(ssl, &exported, exported.count, label, label.utf8.count, nil, 0, 0)
        guard status == 1, let keys = SRTPKeyMaterial(exported: exported, profile: profile, role: role) else {
            return .failure(.protocolFailure(reason: OpenSSLErrorQueue.takeReason(fallback: "SRTP key export failed")))
        }
        return .success(keys)
    }

    private func handshakeError(code: Int32) -> DTLSError {
        if callbacks.sawFingerprintMismatch {
            OpenSSLErrorQueue.clear()
            logMismatch()
            return .fingerprintMismatch
        }
        return .protocolFailure(reason: OpenSSLErrorQueue.takeReason(fallback: "SSL_get_error \(code)"))
    }

    private func logMismatch() {
        let actual = callbacks.rejectedFingerprint?.sdpValue ?? "none"
        Log.warning("dtls", "peer certificate fingerprint \(actual) does not match SDP \(remoteFingerprint.sdpValue)")
    }

    // MARK: - After the handshake

    /// Lets OpenSSL process what arrived after the handshake: retransmitted final flights (which it
    /// answers), alerts and close_notify. Application data is not used by DTLS-SRTP and is dropped.
    private func readAfterHandshake() {
        var buffer = [UInt8](repeating: 0, count: 2048)
        var budget = DatagramChannel.inboundLimit + 16  // bounds the loop whatever OpenSSL reports
        while case .connected = state, budget > 0, channel.nextIncomingSize > 0 || SSL_has_pending(ssl) == 1 {
            budget -= 1
            OpenSSLErrorQueue.clear()
            let count = SSL_read(ssl, &buffer, Int32(buffer.count))
            if count > 0 {
                Log.debug("dtls", "dropping \(count) bytes of DTLS application data")
                continue
            }
            let code = SSL_get_error(ssl, count)
            switch code {
            case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
                continue
            case SSL_ERROR_ZERO_RETURN:
                Log.info("dtls", "peer sent close_notify")
                SSL_shutdown(ssl)
                OpenSSLErrorQueue.clear()
                end(failure: nil)
            default:
                fail(.protocolFailure(reason: OpenSSLErrorQueue.takeReason(fallback: "SSL_get_error \(code)")))
            }
        }
    }

    // MARK: - Outcome and output

    private func fail(_ error: DTLSError) {
        Log.warning("dtls", "\(role): \(error)")
        end(failure: error)
    }

    /// Ends the transport: `.failed(failure)`, or `.closed` when `failure` is nil.
    private func end(failure: DTLSError?) {
        if let failure {
            state = .failed(failure)
            pendingEvents.append(.failed(failure))
        } else {
            state = .closed
            pendingEvents.append(.closed)
        }
        channel.discardIncoming()
    }

    /// Sends what OpenSSL wrote and reports events, after OpenSSL has returned.
    private func finishOperation() {
        let datagrams = channel.takeOutgoing()
        let events = pendingEvents
        pendingEvents.removeAll()
        for datagram in datagrams { send(datagram) }
        for event in events { onEvent?(event) }
    }
}
