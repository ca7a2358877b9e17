import AudioRTP
import AudioSDP
import FoundationEssentials
import Glibc
import MainLoop

/// The loop-thread side of a call: path (ICE) state handling, DTLS (handshake, retransmission
/// timer, timeout), SRTP decryption and the RFC 7983 demultiplexing of everything the path
/// receives. The path is any `DatagramTransport`: `ICEAgent` in a call, a UDP socket in tests.
///
/// Runs on: the shared loop thread (`@MainLoopActor`), which is what `DTLSTransport` (owned
/// here, not Sendable, so the compiler keeps it on this actor) and libnice require; only `init`
/// is `nonisolated`. The receive path stays light: decrypt, parse the header, hand the payload to
/// the jitter buffer (`CallReceiveState`) or the DTMF receiver; decoding happens on the media
/// clock thread.
@MainLoopActor
final class CallMediaTransport {
    /// What the transport tells its owner (on the loop thread).
    struct Handlers: Sendable {
        /// A public event to report (everything except `.failed` and `.closed`).
        let event: @Sendable (CallMediaEvent) -> Void
        /// The call failed.
        let failure: @Sendable (MediaFailure) -> Void
        /// DTLS is connected: media may start, protected by this sender (handed over: from now
        /// on it belongs to the receiver of the call, the audio engine).
        let mediaReady: @Sendable (sending SRTPSender) -> Void
        /// The peer closed DTLS (close_notify): its media has ended.
        let peerClosed: @Sendable () -> Void
    }

    /// DTLS retransmission for a call: faster than RFC 6347's 1 s, since the first flight is
    /// often sent before the peer's ICE agent accepts our datagrams.
    static let retransmission = DTLSRetransmissionPolicy(initialTimeout: 0.2, maximumTimeout: 2)

    private let path: any DatagramTransport
    private let negotiated: NegotiatedAudio
    private let receive: CallReceiveState
    private let configuration: CallMediaConfiguration
    private let ourSSRC: UInt32
    private let ntpClock: NTPClock
    private let handlers: Handlers

    private var dtls: DTLSTransport?
    private var srtp: SRTPReceiver?
    /// Every received SRTP/SRTCP datagram is copied here and decrypted in place (no new array per packet).
    private var decrypted: [UInt8] = []
    private var iceConnected = false
    private var finished = false
    private var retransmitTimer: LoopTimer?
    private var dtlsDeadline: LoopTimer?
    private var mediaWatch: LoopTimer?
    private var mediaStarted: Double?
    private var mediaTimedOut = false
    private var dtmf = DTMFReceiver()

    nonisolated init(path: any DatagramTransport, negotiated: NegotiatedAudio, receive: CallReceiveState,
         configuration: CallMediaConfiguration, ourSSRC: UInt32, ntpClock: NTPClock, handlers: Handlers) {
        self.path = path
        self.negotiated = negotiated
        self.receive = receive
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
            srtp = receiver
            decrypted.reserveCapacity(Self.receiveCapacity)
            handlers.event(.dtlsConnected(profile: keys.profileName))
            handlers.mediaReady(sender)
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
        guard !finished, srtp == nil else { return }
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

    /// Demultiplexes one datagram by its first byte (RFC 7983).
    private func receive(_ datagram: [UInt8]) {
        guard !finished else { return }
        switch DatagramKind.classify(datagram) {
        case .dtls:
            dtls?.receive(datagram)
            if srtp == nil { armRetransmission() }
        case .rtp:
            receiveRTP(datagram)
        case .rtcp:
            receiveRTCP(datagram)
        case .stun, .zrtp, .turnChannel, .unknown:
            receive.discard()
        }
    }

    private func receiveRTP(_ datagram: [UInt8]) {
        guard let srtp else { return }  // media before our DTLS finished cannot be decrypted
        let arrival = MonotonicTime.now()
        guard decrypt(datagram, with: srtp.unprotectRTP), let (header, range) = try? RTPHeader.parse(decrypted) else {
            receive.discard()
            return
        }
        let recorded: CallReceiveState.Recorded
        if header.payloadType == negotiated.codec.payloadType {
            recorded = receive.record(header, payloadBytes: range.count, audioPayload: decrypted[range], arrival: arrival)
        } else if header.payloadType == negotiated.telephoneEventPT {
            recorded = receive.record(header, payloadBytes: range.count, audioPayload: nil, arrival: arrival)
            receiveTelephoneEvent(header, payload: decrypted[range])
        } else {
            receive.discard()
            return
        }
        mediaTimedOut = false
        if recorded.firstPacket { handlers.event(.firstPacketReceived) }
        if recorded.firstAudio { receive.firstAudioRecorded() }  // played at once, not at the next tick
    }

    private func receiveTelephoneEvent(_ header: RTPHeader, payload: ArraySlice<UInt8>) {
        do {
            let key = try dtmf.receive(payload: payload, timestamp: header.timestamp, sequenceNumber: header.sequenceNumber,
                                       marker: header.marker)
            if let digit = key?.digit { handlers.event(.dtmfReceived(digit)) }
        } catch {
            Log.debug("call", "ignoring telephone-event packet: \(error)")
        }
    }

    private func receiveRTCP(_ datagram: [UInt8]) {
        guard let srtp else { return }
        let arrival = MonotonicTime.now()
        guard decrypt(datagram, with: srtp.unprotectRTCP), let packets = try? RTCPPacket.parseCompound(decrypted) else {
            receive.discard()
            return
        }
        receive.recordRTCP(packets, ourSSRC: ourSSRC, arrival: arrival, arrivalNTP: ntpClock.timestamp(atMonotonic: arrival))
    }

    /// Bytes reserved for `decrypted`: a full Ethernet-sized datagram; a larger one grows it once.
    static let receiveCapacity = 1_500

    /// Copies `datagram` into `decrypted` (reusing its storage) and unprotects it there.
    private func decrypt(_ datagram: [UInt8], with unprotect: (inout [UInt8]) throws(SRTPError) -> Void) -> Bool {
        decrypted.removeAll(keepingCapacity: true)
        decrypted.append(contentsOf: datagram)
        do {
            try unprotect(&decrypted)
            return true
        } catch {
            return false
        }
    }

    // MARK: - Media timeout

    private func startMediaWatch() {
        guard negotiated.localDirection.receives else { return }
        mediaStarted = MonotonicTime.now()
        let period = min(1, configuration.mediaTimeout / 4)
        mediaWatch = MainLoopActor.schedule(after: period, repeating: true) { [weak self] in self?.checkMedia() }
    }

    private func checkMedia() {
        guard !finished, !mediaTimedOut, let started = mediaStarted else { return }
        let last = receive.lastRTPArrival ?? started
        let silent = MonotonicTime.now() - max(last, started)
        guard silent >= configuration.mediaTimeout else { return }
        mediaTimedOut = true
        Log.warning("call", "no RTP for \(Int(silent)) s")
        handlers.event(.mediaTimeout)
    }
}
