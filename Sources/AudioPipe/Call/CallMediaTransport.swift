import AudioRTP
import AudioSDP
import FoundationEssentials
import Glibc
import MainLoop

/// The loop-thread side of a call: path (ICE) state handling, DTLS (handshake, retransmission
/// timer, timeout) and the media timeout. The path is any `DatagramTransport`: `ICEAgent` in a
/// call, a UDP socket in tests.
///
/// What the path delivers on the loop is split by its first byte (RFC 7983): DTLS is handled
/// here; SRTP and SRTCP go to the call's `CallReceiveInbox` for the media clock thread, which owns
/// the receive path (`CallMediaReceiver`, made here when DTLS is up and handed over with the SRTP
/// receiver). Once the call's sockets move to the media clock (after its first audio packet), media
/// no longer comes this way at all, and the clock hands DTLS datagrams back here (`receiveDTLS`).
///
/// Runs on: the shared loop thread (`@MainLoopActor`), which is what `DTLSTransport` (owned
/// here, not Sendable, so the compiler keeps it on this actor) and libnice require; only `init`
/// is `nonisolated`.
@MainLoopActor
final class CallMediaTransport {
    /// What the transport tells its owner (on the loop thread).
    struct Handlers: Sendable {
        /// A public event to report (everything except `.failed` and `.closed`); called on the loop
        /// thread, and on the media clock thread by the receiver.
        let event: @Sendable (CallMediaEvent) -> Void
        /// The call failed.
        let failure: @Sendable (MediaFailure) -> Void
        /// DTLS is connected: media may start, protected by this sender and received by this
        /// receiver (both handed over: from now on they belong to the media clock thread, the
        /// audio engine).
        let mediaReady: @Sendable (sending SRTPSender, sending CallMediaReceiver) -> Void
        /// The peer closed DTLS (close_notify): its media has ended.
        let peerClosed: @Sendable () -> Void
    }

    /// DTLS retransmission for a call: faster than RFC 6347's 1 s, since the first flight is
    /// often sent before the peer's ICE agent accepts our datagrams.
    static let retransmission = DTLSRetransmissionPolicy(initialTimeout: 0.2, maximumTimeout: 2)

    private let path: any DatagramTransport
    private let negotiated: NegotiatedAudio
    private let receive: CallReceiveState
    private let inbox: CallReceiveInbox
    private let configuration: CallMediaConfiguration
    private let ourSSRC: UInt32
    private let ntpClock: NTPClock
    private let handlers: Handlers

    private var dtls: DTLSTransport?
    /// Whether SRTP is keyed (DTLS connected): media is then queued for the media clock.
    private var keyed = false
    private var iceConnected = false
    private var finished = false
    private var retransmitTimer: LoopTimer?
    private var dtlsDeadline: LoopTimer?
    private var mediaWatch: LoopTimer?
    private var mediaStarted: Double?
    /// When the media timeout was reported (it is reported again only after RTP came back).
    private var mediaTimedOutAt: Double?

    nonisolated init(path: any DatagramTransport, negotiated: NegotiatedAudio, receive: CallReceiveState,
                     inbox: CallReceiveInbox, configuration: CallMediaConfiguration, ourSSRC: UInt32, ntpClock: NTPClock,
                     handlers: Handlers) {
        self.path = path
        self.negotiated = negotiated
        self.receive = receive
        self.inbox = inbox
        self.configuration = configuration
        self.ourSSRC = ourSSRC
        self.ntpClock = ntpClock
        self.handlers = handlers
    }

    // MARK: - Setup and teardown

    /// Creates the DTLS transport and attaches the path's callbacks; before ICE's `setRemote`.
    func install() throws(CallMediaError) {
        guard !finished else { throw .closed }  // `CallMedia.close()` got to the loop first
        let fingerprint: DTLSFingerprint
        let certificate: DTLSCertificate
        let transport: DTLSTransport
        do {
            fingerprint = try DTLSFingerprint(sdpValue: negotiated.remoteFingerprint.description)
            certificate = try DTLSCertificate.shared
            transport = try DTLSTransport(role: negotiated.dtlsRole, certificate: certificate, remoteFingerprint: fingerprint,
                                          retransmission: Self.retransmission) { [path] datagram in path.send(datagram) }
        } catch {
            throw .setup("DTLS: \(error)")
        }
        transport.onEvent = { [weak self] event in self?.dtlsEvent(event) }
        dtls = transport
        path.onStateChange = { [weak self] state in self?.pathStateChanged(state) }
        path.onReceive = { [weak self] datagram in self?.receive(datagram) }
    }

    /// Stops timers and DTLS (sending close_notify when connected) and closes the path. Idempotent.
    func shutdown() {
        guard !finished else { return }
        finished = true
        retransmitTimer?.cancel()
        dtlsDeadline?.cancel()
        mediaWatch?.cancel()
        dtls?.onEvent = nil
        dtls?.close()
        path.close()
    }

    // MARK: - Path (ICE)

    private func pathStateChanged(_ state: ICEState) {
        guard !finished else { return }
        switch state {
        case .connected, .ready:
            guard !iceConnected else { return }
            iceConnected = true
            handlers.event(.iceConnected(path.selectedPair))
            dtlsDeadline = MainLoopActor.schedule(after: configuration.dtlsTimeout) { [weak self] in self?.dtlsTimedOut() }
            dtls?.start()
            armRetransmission()
        case .failed:
            fail(.iceFailed)
        case .checking, .closed:
            break
        }
    }

    // MARK: - DTLS

    private func dtlsEvent(_ event: DTLSTransport.Event) {
        guard !finished else { return }
        switch event {
        case .connected(let keys):
            dtlsDeadline?.cancel()
            retransmitTimer?.cancel()
            let sender: SRTPSender
            let receiver: SRTPReceiver
            do {
                sender = try SRTPSender(keyMaterial: keys)
                receiver = try SRTPReceiver(keyMaterial: keys)
            } catch {
                Log.warning("call", "SRTP session setup failed: \(error)")
                fail(.srtpFailed(error))
                return
            }
            keyed = true
            let mediaReceiver = CallMediaReceiver(srtp: receiver, context: receiverContext())
            handlers.event(.dtlsConnected(profile: keys.profileName))
            handlers.mediaReady(sender, mediaReceiver)
            startMediaWatch()
        case .failed(.fingerprintMismatch):
            fail(.dtlsFingerprintMismatch)
        case .failed(let error):
            Log.warning("call", "DTLS failed: \(error)")
            fail(.dtlsFailed(error))
        case .closed:
            Log.info("call", "the peer closed DTLS (close_notify); its media has ended")
            retransmitTimer?.cancel()
            dtlsDeadline?.cancel()
            mediaWatch?.cancel()
            handlers.peerClosed()
        }
    }

    /// Re-arms the retransmission timer from `DTLSTransport.nextTimeout` after every DTLS operation.
    private func armRetransmission() {
        retransmitTimer?.cancel()
        retransmitTimer = nil
        guard !finished, let seconds = dtls?.nextTimeout else { return }
        retransmitTimer = MainLoopActor.schedule(after: max(seconds, 0.001)) { [weak self] in
            guard let self, !finished else { return }
            dtls?.handleTimeout()
            armRetransmission()
        }
    }

    private func dtlsTimedOut() {
        guard !finished, !keyed else { return }
        Log.warning("call", "DTLS not connected \(configuration.dtlsTimeout) s after ICE")
        fail(.dtlsTimeout)
    }

    private func fail(_ reason: MediaFailure) {
        guard !finished else { return }
        retransmitTimer?.cancel()
        dtlsDeadline?.cancel()
        mediaWatch?.cancel()
        handlers.failure(reason)
    }

    // MARK: - Receive

    /// Demultiplexes one datagram the path delivered on the loop by its first byte (RFC 7983).
    private func receive(_ datagram: [UInt8]) {
        guard !finished else { return }
        switch DatagramKind.classify(datagram) {
        case .dtls:
            receiveDTLS(datagram)
        case .rtp, .rtcp:
            // Media before our DTLS finished cannot be decrypted.
            guard keyed else { return }
            if !inbox.put(datagram, arrival: MonotonicTime.now()) { receive.discard() }
        case .stun, .zrtp, .turnChannel, .unknown:
            receive.discard()
        }
    }

    /// One DTLS datagram, from the path or handed back by the media clock's receiver.
    func receiveDTLS(_ datagram: [UInt8]) {
        guard !finished else { return }
        dtls?.receive(datagram)
        if !keyed { armRetransmission() }
    }

    /// What the media clock's receiver shares with this side.
    private func receiverContext() -> CallMediaReceiver.Context {
        CallMediaReceiver.Context(
            negotiated: negotiated, receive: receive, inbox: inbox, ourSSRC: ourSSRC, ntpClock: ntpClock,
            event: handlers.event,
            dtls: { [weak self] datagram in MainLoopActor.post { self?.receiveDTLS(datagram) } })
    }

    // MARK: - Media timeout

    private func startMediaWatch() {
        guard negotiated.localDirection.receives else { return }
        mediaStarted = MonotonicTime.now()
        let period = min(1, configuration.mediaTimeout / 4)
        mediaWatch = MainLoopActor.schedule(after: period, repeating: true) { [weak self] in self?.checkMedia() }
    }

    private func checkMedia() {
        guard !finished, let started = mediaStarted else { return }
        let last = receive.lastRTPArrival ?? started
        if let reported = mediaTimedOutAt {
            guard last > reported else { return }  // still silent since it was reported
            mediaTimedOutAt = nil
        }
        let now = MonotonicTime.now()
        let silent = now - max(last, started)
        guard silent >= configuration.mediaTimeout else { return }
        mediaTimedOutAt = now
        Log.warning("call", "no RTP for \(Int(silent)) s")
        handlers.event(.mediaTimeout)
    }
}
