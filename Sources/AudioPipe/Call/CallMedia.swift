import AudioRTP
import AudioSDP
import FoundationEssentials
import Glibc
import MainLoop
import Synchronization

/// One call's WebRTC audio: SDP offer/answer, ICE (libnice), DTLS-SRTP, RTP/RTCP, the jitter
/// buffer, the codec, RFC 4733 DTMF, and the audio source and sink.
///
/// Use: `answer(offer:)` for an incoming call, or `makeOffer()` then `applyAnswer(_:)` for an
/// outgoing one. Media starts by itself once ICE and DTLS are up; progress and failures arrive
/// on `events`. `close()` ends everything (and closes the source and sink).
///
/// Runs on: any thread for the public methods (state under one `Mutex`; nothing here blocks on
/// another thread). libnice and DTLS run on the shared loop (`ICEAgent`, `CallMediaTransport`,
/// both `@MainLoopActor`), reached with async hops; the 20 ms send and playout clock runs on the
/// one media clock thread of the process (`MediaClock`, `CallAudioEngine`).
public final class CallMedia: Sendable {
    private enum Phase {
        /// Nothing started.
        case idle
        /// `makeOffer` or `answer` is gathering candidates.
        case gathering
        /// Our offer is out; waiting for `applyAnswer`.
        case offered(String)
        /// Negotiated: ICE, DTLS and media are starting or running.
        case negotiated
        /// Failed or closed by the peer (reported once as `.failed` or `.peerClosed`); waiting for
        /// `close()`.
        case failed
        /// Closed.
        case closed
    }

    /// The configuration given at creation.
    public let configuration: CallMediaConfiguration
    /// Everything that happens to the call, ending with `.closed`. Meant for one consumer.
    public let events: AsyncStream<CallMediaEvent>

    private let continuation: AsyncStream<CallMediaEvent>.Continuation
    private let source: any AudioSource
    private let sink: any AudioSink
    /// The call's audio stages, in order (`CallAudioStage`).
    private let stages: [any CallAudioStage]
    private let ssrc = UInt32.random(in: 1...UInt32.max)
    private let cname = "wcs-agent-" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
    private let ntpClock = NTPClock(monotonicNow: MonotonicTime.now())
    private let sendState = CallSendState()

    private let state = Mutex(State())

    /// Everything that changes as the call goes on.
    private struct State: Sendable {
        var phase = Phase.idle
        var ice: ICEAgent?
        var transport: CallMediaTransport?
        var engine: CallAudioEngine?
        var negotiatedAudio: NegotiatedAudio?
        var receive: CallReceiveState?
        var inbox: CallReceiveInbox?
        var negotiationStart: Double?
        var firstAudioLatency: Double?
        var firstAudioTime: Int64?
        var srtpProfile: String?

        /// What has to be stopped when the call ends.
        var runningParts: RunningParts { RunningParts(engine: engine, transport: transport, ice: ice) }
    }

    /// Creates the call's media; nothing happens before `answer(offer:)` or `makeOffer()`.
    /// `source` is read and `sink` written once per 20 ms while media runs; `stages` process and
    /// observe both directions in between (`CallAudioStage`), in order, and are closed with the call.
    public init(configuration: CallMediaConfiguration, source: AudioSource, sink: AudioSink, stages: [any CallAudioStage] = []) {
        self.configuration = configuration
        self.source = source
        self.sink = sink
        self.stages = stages
        (events, continuation) = AsyncStream.makeStream(of: CallMediaEvent.self, bufferingPolicy: .unbounded)
        let continuation = self.continuation
        for stage in stages { stage.attached(to: CallAudioStageEvents { continuation.yield($0) }) }
    }

    deinit {
        close()
    }

    /// The call's first stage of type `T` (e.g. the prompt player a caller queues tones on).
    public func stage<T: CallAudioStage>(of type: T.Type) -> T? {
        stages.lazy.compactMap { $0 as? T }.first
    }

    // MARK: - Offer and answer

    /// Answers an incoming call's offer: checks it (throws `CallMediaError.negotiation`, e.g. "No
    /// common codecs", before any gathering), gathers candidates, and returns our answer SDP.
    /// ICE checks start at once; media starts when ICE and DTLS are up. A refused offer is also
    /// reported as `.failed`. Call once, on a fresh `CallMedia`.
    public func answer(offer: String) async throws -> String {
        let started = MonotonicTime.now()
        try begin(from: "answer(offer:)")
        do {
            _ = try CallNegotiation.answer(to: offer, local: CallNegotiation.placeholderCapabilities(configuration: configuration))
            let ice = try await createICE(controlling: false)
            let local = try await gather(ice)
            let (sdp, negotiated) = try CallNegotiation.answer(to: offer, local: capabilities(local))
            try await start(negotiated: negotiated, ice: ice, startedAt: started)
            return sdp
        } catch {
            throw abandon(error)
        }
    }

    /// Creates our offer for an outgoing call (we are ICE-controlling) after gathering
    /// candidates. Pass the peer's answer to `applyAnswer(_:)`. Call once, on a fresh `CallMedia`.
    public func makeOffer() async throws -> String {
        try begin(from: "makeOffer()")
        do {
            let ice = try await createICE(controlling: true)
            let local = try await gather(ice)
            let offer = CallNegotiation.offer(try capabilities(local))
            try state.withLock { (state: inout State) throws(CallMediaError) in
                guard case .gathering = state.phase else { throw .closed }
                state.phase = .offered(offer)
            }
            return offer
        } catch {
            throw abandon(error)
        }
    }

    /// Applies the peer's answer to our offer and starts ICE checks; media starts when ICE and
    /// DTLS are up. Throws `CallMediaError.negotiation` for an unusable answer (also reported as
    /// `.failed`), `.invalidState` without a pending offer. Returns once ICE checks run.
    public func applyAnswer(_ answer: String) async throws {
        let started = MonotonicTime.now()
        let (offer, ice) = try state.withLock { (state: inout State) throws(CallMediaError) -> (String, ICEAgent?) in
            guard case .offered(let offer) = state.phase else { throw .invalidState("applyAnswer(_:) without a pending offer") }
            state.phase = .gathering
            return (offer, state.ice)
        }
        do {
            guard let ice else { throw CallMediaError.closed }
            let negotiated = try CallNegotiation.accept(answer: answer, toOffer: offer)
            try await start(negotiated: negotiated, ice: ice, startedAt: started)
        } catch {
            throw abandon(error)
        }
    }

    // MARK: - During the call

    /// Sends DTMF digits (0-9, *, #, A-D) in-band as RFC 4733 telephone events, one after the
    /// other (100 ms tones, 70 ms gaps). Throws `.dtmfNotNegotiated` when the peer has no
    /// telephone-event, `.invalidDTMF` for a bad digit (nothing is sent then), `.invalidState`
    /// before negotiation or after failure/close.
    public func sendDTMF(_ digits: String) throws {
        let negotiated = try state.withLock { (state: inout State) throws(CallMediaError) -> NegotiatedAudio in
            guard case .negotiated = state.phase, let negotiatedAudio = state.negotiatedAudio else {
                throw .invalidState("sendDTMF(_:) needs negotiated, running call media")
            }
            return negotiatedAudio
        }
        guard negotiated.telephoneEventPT != nil else { throw CallMediaError.dtmfNotNegotiated }
        guard negotiated.localDirection.sends else { throw CallMediaError.invalidState("the negotiated direction does not let us send") }
        guard try sendState.enqueueDTMF(digits) else { throw CallMediaError.dtmfNotNegotiated }
    }

    /// Whether silence (or, with Opus DTX, nothing) is sent instead of the source. The source is
    /// still read, so it keeps pace.
    public var isMuted: Bool {
        get { sendState.isMuted }
        set { sendState.isMuted = newValue }
    }

    /// The negotiated codec, directions and peer parameters; nil before negotiation.
    public var negotiated: NegotiatedAudio? {
        state.withLock { $0.negotiatedAudio }
    }

    /// Whether the call's ICE sockets are read on the media clock thread (they move there after the
    /// first audio packet; see `CallAudioEngine`). For tests and diagnostics.
    func receivesOnMediaClock() async -> Bool {
        guard let ice = state.withLock({ $0.ice }) else { return false }
        return await MainLoopActor.run { ice.session.receivesOnMediaClock }
    }

    /// Counters for call records and health checks; see `CallMediaStatistics`.
    public func statistics() -> CallMediaStatistics {
        let (negotiated, receive, latency, profile, ice) = state.withLock {
            ($0.negotiatedAudio, $0.receive, $0.firstAudioLatency, $0.srtpProfile, $0.ice)
        }
        var result = CallMediaStatistics()
        result.codec = negotiated?.codec.kind
        result.payloadType = negotiated?.codec.payloadType
        result.srtpProfile = profile
        result.firstAudioLatency = latency
        result.selectedPair = ice?.selectedPair
        let sent = sendState.sent
        result.packetsSent = sent.packets
        result.bytesSent = sent.bytes
        result.rtcpSent = sent.rtcp
        result.packetsSentDirect = ice?.directSends ?? 0
        if let snapshot = receive?.snapshot {
            result.packetsReceived = snapshot.packetsReceived
            result.bytesReceived = snapshot.bytesReceived
            result.packetsLost = snapshot.packetsLost
            result.fractionLost = snapshot.fractionLost
            result.jitterMs = snapshot.jitterMs
            result.roundTripTimeMs = snapshot.roundTripTime.map { $0 * 1000 }
            result.remotePacketsLost = snapshot.remoteReport.map { Int($0.cumulativeLost) }
            result.remoteFractionLost = snapshot.remoteReport.map { Double($0.fractionLost) / 256 }
            result.rtcpReceived = snapshot.rtcpReceived
            result.goodbyeReceived = snapshot.goodbyeReceived
            result.packetsDiscarded = snapshot.packetsDiscarded
            result.framesDecoded = snapshot.framesDecoded
            result.concealedFrames = snapshot.jitter?.concealed ?? 0
            result.framesRecoveredFEC = snapshot.framesRecoveredFEC
            result.latePackets = snapshot.jitter?.late ?? 0
            result.jitterBufferTargetMs = snapshot.jitter?.targetDelayMs ?? 0
        }
        return result
    }

    /// Ends the call's media: stops the media clock's ticks for this call (waiting for one in
    /// progress), sends RTCP BYE, closes the source and the sink; then, on the loop, closes DTLS
    /// (close_notify) and ICE, reports `.closed` and ends `events`. Returns without waiting for
    /// the loop: await `.closed` on `events` to know the network side is done. Idempotent; safe
    /// from any thread.
    public func close() {
        let (parts, wasRunning): (RunningParts?, Bool) = state.withLock { state in
            if case .closed = state.phase { return (nil, false) }
            let running = if case .negotiated = state.phase { true } else { false }
            state.phase = .closed
            return (state.runningParts, running)
        }
        guard let parts else { return }
        parts.engine?.stop()
        if wasRunning { parts.engine?.sendGoodbye() }
        source.close()
        for stage in stages { stage.close() }
        do {
            try sink.close()
        } catch {
            Log.warning("call", "closing the audio sink failed: \(error)")
        }
        let continuation = continuation
        MainLoopActor.post {
            // After the BYE, which the loop sends first (posted work runs in order).
            parts.transport?.shutdown()
            parts.ice?.close()
            Log.info("call", "media closed")
            continuation.yield(.closed)
            continuation.finish()
        }
    }

    // MARK: - Setup

    /// Moves a fresh call (`.idle`) to `.gathering`, or throws `.invalidState`.
    private func begin(from method: String) throws(CallMediaError) {
        try configuration.validate()
        try state.withLock { (state: inout State) throws(CallMediaError) in
            guard case .idle = state.phase else { throw .invalidState("\(method) on call media that already started or closed") }
            state.phase = .gathering
        }
    }

    private func createICE(controlling: Bool) async throws(CallMediaError) -> ICEAgent {
        var settings = configuration.ice
        settings.controlling = controlling
        let agent: ICEAgent
        do {
            _ = await NiceLibrary.loaded()  // dlopen off the loop thread, at the first call only
            agent = try await ICEAgent(configuration: settings)
        } catch {
            throw .ice("\(error)")
        }
        let accepted = state.withLock { state in
            guard case .gathering = state.phase else { return false }
            state.ice = agent
            return true
        }
        guard accepted else {
            await agent.close()
            throw .closed
        }
        return agent
    }

    private func gather(_ ice: ICEAgent) async throws(CallMediaError) -> ICELocalParameters {
        do {
            return try await ice.gather()
        } catch ICEError.closed {
            throw .closed
        } catch {
            throw .ice("\(error)")
        }
    }

    private func capabilities(_ local: ICELocalParameters) throws(CallMediaError) -> LocalAudioCapabilities {
        try CallNegotiation.capabilities(configuration: configuration, ice: local, ssrc: ssrc, cname: cname)
    }

    /// Prepares codec, jitter buffer and transport for `negotiated` and starts ICE checks.
    private func start(negotiated: NegotiatedAudio, ice: ICEAgent, startedAt: Double) async throws(CallMediaError) {
        let codecs = try CallCodecSet(codec: negotiated.codec, configuration: configuration)
        let receive = try CallReceiveState(codecs: codecs, jitter: configuration.jitter)
        let inbox = CallReceiveInbox(audioPayloadType: negotiated.codec.payloadType)
        if negotiated.telephoneEventPT != nil {
            try sendState.enableDTMF(clockRate: negotiated.telephoneEventClockRate ?? 8_000)
        }
        let handlers = CallMediaTransport.Handlers(
            event: { [weak self] event in self?.continuation.yield(event) },
            failure: { [weak self] reason in self?.fail(reason) },
            mediaReady: { [weak self] sender, receiver in self?.startMedia(srtp: sender, receiver: receiver) },
            peerClosed: { [weak self] in self?.end(reporting: .peerClosed) })
        let transport = CallMediaTransport(path: ice, negotiated: negotiated, receive: receive, inbox: inbox,
                                           configuration: configuration, ourSSRC: ssrc, ntpClock: ntpClock, handlers: handlers)
        try state.withLock { (state: inout State) throws(CallMediaError) in
            guard case .gathering = state.phase else { throw .closed }
            state.phase = .negotiated
            state.negotiatedAudio = negotiated
            state.receive = receive
            state.inbox = inbox
            state.transport = transport
            state.negotiationStart = startedAt
        }
        Log.info("call", "negotiated \(negotiated.codec.kind.encodingName)/\(negotiated.codec.payloadType), DTLS \(negotiated.dtlsRole), "
            + "\(negotiated.remoteCandidates.count) remote candidate(s), direction \(negotiated.localDirection)")
        try await Self.connect(transport, over: ice, negotiated: negotiated)
    }

    /// On the loop: attaches the transport to ICE, then hands ICE the peer's parameters.
    @MainLoopActor
    private static func connect(_ transport: CallMediaTransport, over ice: ICEAgent,
                                negotiated: NegotiatedAudio) throws(CallMediaError) {
        try transport.install()
        do {
            try ice.setRemote(ufrag: negotiated.remoteIceUfrag, pwd: negotiated.remoteIcePwd,
                              candidates: negotiated.remoteCandidates, iceLite: negotiated.remoteIceLite)
        } catch ICEError.closed {
            throw .closed
        } catch {
            throw .ice("\(error)")
        }
    }

    /// DTLS is up (loop thread): creates the audio engine, which takes `srtp` and `receiver` over,
    /// and starts it unless the call was closed meanwhile.
    private func startMedia(srtp: sending SRTPSender, receiver: sending CallMediaReceiver) {
        let profile = srtp.profile.name
        let parts: (NegotiatedAudio, CallReceiveState, CallReceiveInbox, ICEAgent)? = state.withLock { state in
            guard case .negotiated = state.phase, let negotiatedAudio = state.negotiatedAudio, let receive = state.receive,
                  let inbox = state.inbox, let ice = state.ice else { return nil }
            return (negotiatedAudio, receive, inbox, ice)
        }
        guard let (negotiatedAudio, receive, inbox, ice) = parts else { return }
        var setup = CallAudioEngine.Setup(
            codec: negotiatedAudio.codec, configuration: configuration, send: { [ice] datagram in ice.sendMedia(datagram) }, source: source, sink: sink,
            stages: stages, receive: receive, inbox: inbox, sendState: sendState, sends: negotiatedAudio.localDirection.sends,
            receives: negotiatedAudio.localDirection.receives, ssrc: ssrc,
            cname: cname, ntpClock: ntpClock, telephoneEventPT: negotiatedAudio.telephoneEventPT,
            rtcpMinimumInterval: configuration.rtcpMinimumInterval,
            firstAudioDecoded: { [weak self] in self?.firstAudioDecoded() })
        setup.receiveOnMediaClock = { [ice] context, target in ice.receiveOnMediaClock(context, target: target) }
        setup.receiveOnLoop = { [ice] in ice.receiveOnLoop() }
        let made = try? CallAudioEngine(setup: setup, srtp: srtp, receiver: receiver)  // makes its own codecs (see `CallCodecSet`)
        let engine: CallAudioEngine? = state.withLock { state in
            guard case .negotiated = state.phase else { return nil }  // closed while the engine was made
            state.srtpProfile = profile
            state.engine = made
            return made
        }
        guard let engine else {
            if case .negotiated = state.withLock({ $0.phase }) { fail(.mediaSetup("the audio engine could not start")) }
            return
        }
        engine.start()
        Log.info("call", "media started (\(profile))")
    }

    /// The first frame was decoded (audio thread).
    private func firstAudioDecoded() {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        state.withLock { state in
            if let start = state.negotiationStart { state.firstAudioLatency = MonotonicTime.now() - start }
            state.firstAudioTime = Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1000
        }
        continuation.yield(.firstAudioDecoded)
    }

    /// When the first audio frame was decoded: µs since the Unix epoch (CLOCK_REALTIME), stamped on
    /// the audio thread as it happens (a bench compares it with a push's send time); nil before.
    public var firstAudioTime: Int64? { state.withLock { $0.firstAudioTime } }

    /// Reports a failure once and stops media, ICE and DTLS (the stream stays open for `close()`).
    private func fail(_ reason: MediaFailure) {
        end(reporting: .failed(reason))
    }

    /// Reports why media ended (a failure, or the peer's close_notify), once, and stops media,
    /// ICE and DTLS; the stream stays open for `close()`.
    private func end(reporting event: CallMediaEvent) {
        let parts: RunningParts? = state.withLock { state in
            switch state.phase {
            case .failed, .closed: return nil
            case .idle, .gathering, .offered, .negotiated: break
            }
            state.phase = .failed
            return state.runningParts
        }
        guard let parts else { return }
        if case .failed(let reason) = event { Log.warning("call", "media failed: \(reason)") }
        continuation.yield(event)
        // Not inline: this may run inside a libnice signal or a DTLS callback.
        MainLoopActor.post {
            parts.engine?.stop()
            parts.transport?.shutdown()
            parts.ice?.close()
        }
    }

    /// What has to be stopped when the call ends.
    private struct RunningParts: Sendable {
        let engine: CallAudioEngine?
        let transport: CallMediaTransport?
        let ice: ICEAgent?
    }

    /// Handles an error thrown while negotiating: a refusal fails the call (reported once); a
    /// close is passed on as `.closed`. Returns the error to throw.
    private func abandon(_ error: Error) -> CallMediaError {
        let callError = (error as? CallMediaError) ?? .setup("\(error)")
        if callError != .closed { fail(callError.failure) }
        return callError
    }
}
