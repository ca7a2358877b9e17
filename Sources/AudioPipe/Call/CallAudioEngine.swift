import AudioRTP
import FoundationEssentials
import Glibc
import MainLoop
import Synchronization

/// The 20 ms media work of one call, ticked by a `MediaClock` (one thread for many calls; the
/// pool of the call's configuration places the call on a clock with room when the engine is made,
/// and it stays there; the first tick runs as soon as the engine starts, so the first frame goes
/// out right after DTLS).
///
/// Each tick: pull one frame from the source (always, so a live source keeps pace; silence when
/// muted), encode, packetize, SRTP-protect and send it, or send the tick's RFC 4733 packets
/// instead (the audio timestamp keeps pace through `RTPPacketizer.skip`); send an RTCP compound
/// when `RTCPScheduler` says so; then play one slot out of the jitter buffer into the sink
/// (`CallPlayout`: decode, recover from FEC, conceal with a fade, or silence). Nothing here
/// blocks on I/O: sources and sinks buffer in the background and `ICEAgent.send` is a
/// non-blocking UDP send on this thread (no loop job per packet). The frame, payload, packet and
/// playout buffers are reused for every tick, and SRTP protects the packet buffer in place
/// (`SRTPSender`): nothing is allocated per frame on the send path.
///
/// Receiving: the engine owns the call's receive path (`CallMediaReceiver`: SRTP, RTP/RTCP, jitter
/// buffer insert), handed over when DTLS is up. Each tick first takes what the loop queued
/// (`CallReceiveInbox`). After the first audio packet the engine asks the path to move the call's
/// sockets to this clock's `MediaReceiveContext` (`receiveOnMediaClock`): from then on the clock
/// reads them itself right before each round and datagrams reach `receiver` on this thread
/// without touching the loop; `stop` moves them back to the loop (STUN and consent keep being
/// answered while the call lives).
///
/// The call's first received audio packet does not wait for the next tick: the inbox reports it
/// and the clock runs this call's playout at once (`MediaClock.requestPlayout`). The next periodic
/// tick then plays nothing, so the sink still gets one frame per period and the delay of the rest
/// of the call is the same as without the early frame; only the first frame is heard up to one
/// period sooner.
///
/// Runs on: the media clock thread for every tick (all state below `clock`, the codecs
/// included, is touched only there); `start`/`stop`/`sendGoodbye` from the call's owner.
final class CallAudioEngine: @unchecked Sendable {  // unchecked: tick state is the clock thread's alone (MediaClock runs one tick at a time and `stop` waits for it)
    /// What the engine needs from the call. The codecs are made by the engine (`init`), not
    /// passed in: they are not Sendable, and belong to the media clock thread from then on.
    struct Setup: Sendable {
        let codec: AudioCodec
        let configuration: CallMediaConfiguration
        let send: @Sendable ([UInt8]) -> Void
        let source: any AudioSource
        let sink: any AudioSink
        /// The call's audio stages, in order (`CallAudioStage`): near-end frames after the source,
        /// far-end frames before the sink.
        let stages: [any CallAudioStage]
        let receive: CallReceiveState
        /// What the loop queues for `receiver` (its first audio packet wakes the clock).
        let inbox: CallReceiveInbox
        let sendState: CallSendState
        /// Whether we send media (our negotiated direction).
        let sends: Bool
        /// Whether we receive media (our negotiated direction).
        let receives: Bool
        let ssrc: UInt32
        let cname: String
        let ntpClock: NTPClock
        let telephoneEventPT: UInt8?
        let rtcpMinimumInterval: Double
        /// Called once, on the audio thread, after the first received frame was decoded.
        let firstAudioDecoded: @Sendable () -> Void
        /// Moves the call's sockets to a media clock's context, datagrams to the target (ICE);
        /// nil when the path cannot (UDP in tests): media then keeps coming through the inbox.
        var receiveOnMediaClock: (@Sendable (MediaReceiveContext, MediaReceiveTarget) -> Void)?
        /// Moves them back to the loop.
        var receiveOnLoop: (@Sendable () -> Void)?
    }

    private let setup: Setup
    /// Protects what we send; the engine's own (handed over by DTLS), used on the clock thread.
    private let srtp: SRTPSender
    /// Unprotects and records what we receive; the engine's own (handed over by DTLS), used on the clock thread.
    private let receiver: CallMediaReceiver
    private let codecs: CallCodecSet
    private let clock: MediaClock
    /// The clock registration, and whether `stop()` came (from the owner's thread).
    private let lifecycle = Mutex<(registration: MediaClock.Registration?, stopped: Bool)>((nil, false))

    // Audio thread only.
    private var packetizer: RTPPacketizer
    private var senderStats: RTPSenderStats
    private var rtcpScheduler: RTCPScheduler
    private var rtcpStarted = false
    private var frame = [Int16](repeating: 0, count: AudioPipe.samplesPerFrame)
    private var packet: [UInt8] = []
    private var encoded = [UInt8](repeating: 0, count: 1_500)
    private var eventStart: (offset: UInt32, timestamp: UInt32)?
    private var decodedAny = false
    /// Slots played since the first decoded frame (for the concealment log).
    private var playedSlots = 0
    /// An audio packet was received (the first one may be played between two ticks).
    private var audioReceived = false
    /// The sockets were asked to move to this clock.
    private var movedToClock = false
    /// The first packet was played between two ticks: the next tick plays nothing.
    private var skipNextPlayout = false
    private var playout: CallPlayout
    private var reportedFailures = Set<String>()

    /// An engine for `setup`, protecting with `srtp` and receiving with `receiver`, ticked by
    /// `clock` or else the clock its configuration's pool places it on; it joins with `start()`.
    init(setup: Setup, srtp: sending SRTPSender, receiver: sending CallMediaReceiver,
         clock: MediaClock? = nil) throws(CallMediaError) {
        self.setup = setup
        self.srtp = srtp
        self.receiver = receiver
        self.clock = clock ?? setup.configuration.mediaClocks.clockForNewCall()
        codecs = try CallCodecSet(codec: setup.codec, configuration: setup.configuration)
        do {
            packetizer = try RTPPacketizer(payloadType: codecs.codec.payloadType, clockRate: codecs.codec.clockRate,
                                           ssrc: setup.ssrc)
        } catch {
            throw .setup("RTP packetizer: \(error)")
        }
        packet.reserveCapacity(1_500 + SRTPSender.maximumGrowth)
        senderStats = RTPSenderStats(ssrc: setup.ssrc, clockRate: codecs.codec.clockRate)
        rtcpScheduler = RTCPScheduler(minimumInterval: setup.rtcpMinimumInterval)
        playout = CallPlayout(codecs: codecs, receive: setup.receive)
    }

    /// Joins the media clock (thread `wcs-media` or `wcs-media-N`): the first tick runs at once, and the first
    /// received audio packet is played as soon as it arrives. Does nothing after a first
    /// `start()` or after `stop()`.
    func start() {
        let started = lifecycle.withLock { life in
            guard life.registration == nil, !life.stopped else { return false }
            life.registration = clock.register({ [self] now, skipped in
                tick(now: now, skipped: skipped)
            }, playout: { [self] now in
                firstPacketPlayout(now: now)
            })
            return true
        }
        if started { setup.inbox.onFirstAudio { [weak self] in self?.firstPacketArrived() } }
    }

    /// The first audio packet is in the jitter buffer (loop thread): play it now, not at the next tick.
    private func firstPacketArrived() {
        guard let registration = lifecycle.withLock({ $0.registration }) else { return }
        clock.requestPlayout(registration)
    }

    /// Leaves the media clock and waits for this call's tick in progress to finish, then has the
    /// call's sockets moved back to the loop (if they were moved). Idempotent.
    func stop() {
        let leaving: MediaClock.Registration? = lifecycle.withLock { life in
            life.stopped = true
            defer { life.registration = nil }
            return life.registration
        }
        guard let leaving else { return }
        clock.unregister(leaving)
        setup.receiveOnLoop?()
    }

    /// Tells the peer our stream ends: an RR + SDES + BYE compound (RFC 3550 section 6.6).
    /// Call after `stop()`, once.
    func sendGoodbye() {
        guard setup.sends else { return }
        do {
            var compound = try RTCPPacket.serializeCompound([
                .receiverReport(RTCPReceiverReport(ssrc: setup.ssrc)),
                .sourceDescription(RTCPSourceDescription(ssrc: setup.ssrc, cname: setup.cname)),
                .goodbye(RTCPGoodbye(sources: [setup.ssrc])),
            ])
            try srtp.protectRTCP(&compound)
            setup.send(compound)
        } catch {
            Log.debug("call", "RTCP BYE not sent: \(error)")
        }
    }

    // MARK: - Tick

    private func tick(now: Double, skipped: Int) {
        receiveQueued()
        if skipped > 0 { packetizer.skip(samples: UInt32(truncatingIfNeeded: skipped * codecs.timestampStep)) }
        sendTick(now: now)
        rtcpTick(now: now)
        if skipNextPlayout {
            skipNextPlayout = false
        } else {
            playoutTick(now: now)
        }
    }

    /// The playout the first packet asked for (clock thread, between two ticks): it stands in for
    /// the next tick's. Nothing to do when a tick already decoded the packet.
    private func firstPacketPlayout(now: Double) {
        receiveQueued()
        guard audioReceived, !decodedAny, !skipNextPlayout else { return }
        playoutTick(now: now)
        skipNextPlayout = true
    }

    // MARK: - Receive

    /// Handles what the loop queued; after the first audio packet (or, when we do not receive
    /// audio, the first datagram), asks for the sockets to move to this clock.
    private func receiveQueued() {
        let outcome = receiver.receiveQueued()
        if case .audio = outcome { audioReceived = true }
        guard !movedToClock, !setup.configuration.receivesOnLoopOnly, let move = setup.receiveOnMediaClock, outcome != .nothing,
              audioReceived || !setup.receives else { return }
        movedToClock = true
        move(clock.receiveContext, MediaReceiveTarget { [self] bytes in receivedOnMediaClock(bytes) })
    }

    /// One datagram read by the clock's drain (libnice's buffer, valid during the call): it came
    /// in after the drain before this one.
    private func receivedOnMediaClock(_ bytes: UnsafeRawBufferPointer) {
        _ = receiver.receive(bytes, arrival: MonotonicTime.now(), earliestArrival: clock.receiveContext.previousDrainStart)
    }

    // MARK: - Send

    private func sendTick(now: Double) {
        let count = frame.withUnsafeMutableBufferPointer { setup.source.read(into: $0) }
        if count <= 0 {
            frame.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
        } else if count < frame.count {
            frame.withUnsafeMutableBufferPointer { UnsafeMutableBufferPointer(rebasing: $0[count...]).update(repeating: 0) }
        }
        if !setup.stages.isEmpty {
            frame.withUnsafeMutableBufferPointer { samples in
                for stage in setup.stages { stage.nearEndCaptured(samples) }
            }
        }
        let (muted, events) = setup.sendState.nextTick()
        guard setup.sends else { return }
        let step = UInt32(codecs.timestampStep)
        if !events.isEmpty, let eventPT = setup.telephoneEventPT {
            sendEvents(events, payloadType: eventPT, now: now)
            packetizer.skip(samples: step)
            return
        }
        if muted {
            frame.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
        }
        let length: Int
        do {
            length = try frame.withUnsafeBufferPointer { pcm in
                try encoded.withUnsafeMutableBytes { try codecs.encoder.encode(pcm, into: $0) }
            }
        } catch {
            reportOnce("encode", "encoding failed: \(error)")
            packetizer.skip(samples: step)
            return
        }
        if codecs.dropsDTXFrames && codecs.encoder.lastFrameWasDTX {
            packetizer.skip(samples: step)
            return
        }
        let timestamp = packetizer.timestamp
        encoded.withUnsafeBytes { bytes in
            packetizer.writePacket(payload: UnsafeRawBufferPointer(rebasing: bytes[0..<length]), samples: step, into: &packet)
        }
        sendRTP(&packet, payloadBytes: length, now: now, mediaTimestamp: timestamp)
    }

    /// Sends this tick's telephone-event packets: every packet of one event carries the audio
    /// timestamp of the tick the event started in.
    private func sendEvents(_ events: [DTMFPacket], payloadType: UInt8, now: Double) {
        for event in events {
            if eventStart?.offset != event.timestampOffset {
                eventStart = (event.timestampOffset, packetizer.timestamp)
            }
            guard let start = eventStart,
                  var bytes = try? packetizer.eventPacket(payload: event.payload, payloadType: payloadType,
                                                          timestamp: start.timestamp, marker: event.marker) else { continue }
            sendRTP(&bytes, payloadBytes: event.payload.count, now: now, mediaTimestamp: nil)
        }
    }

    /// Protects `bytes` in place and sends them.
    private func sendRTP(_ bytes: inout [UInt8], payloadBytes: Int, now: Double, mediaTimestamp: UInt32?) {
        do {
            try srtp.protectRTP(&bytes)
            setup.send(bytes)
        } catch {
            reportOnce("protect", "SRTP protect failed: \(error)")
            return
        }
        senderStats.recordSent(payloadBytes: payloadBytes, sendTime: now, mediaTimestamp: mediaTimestamp)
        setup.sendState.countSent(payloadBytes: payloadBytes)
    }

    private func rtcpTick(now: Double) {
        let weSent = senderStats.packetCount > 0
        if !rtcpStarted {
            rtcpStarted = true
            rtcpScheduler.start(now: now, weSent: setup.sends)
            return
        }
        guard rtcpScheduler.isDue(now: now) else { return }
        let blocks = setup.receive.makeReportBlock(now: now).map { [$0] } ?? []
        var compound: [UInt8]
        do {
            if let report = senderStats.makeSenderReport(now: now, clock: setup.ntpClock, reportBlocks: blocks) {
                compound = try RTCPPacket.senderReportCompound(report, cname: setup.cname)
            } else {
                compound = try RTCPPacket.receiverReportCompound(RTCPReceiverReport(ssrc: setup.ssrc, reportBlocks: blocks),
                                                                 cname: setup.cname)
            }
            try srtp.protectRTCP(&compound)
            setup.send(compound)
            setup.sendState.countRTCP()
            rtcpScheduler.didSend(now: now, packetSize: compound.count + 28, weSent: weSent)
        } catch {
            reportOnce("rtcp", "RTCP report failed: \(error)")
            rtcpScheduler.didSend(now: now, packetSize: 0, weSent: weSent)
        }
    }

    @discardableResult
    private func playoutTick(now: Double) -> CallPlayout.Slot {
        let (slot, failure) = playout.next(now: now) { play($0) }
        if let failure { reportOnce("decode", failure) }
        if decodedAny { playedSlots += 1 }
        if slot == .concealed { logConcealment() }
        if slot == .decoded && !decodedAny {
            decodedAny = true
            setup.firstAudioDecoded()
        }
        return slot
    }

    /// Says where in the call a slot was concealed and why (the jitter buffer's counters), so a
    /// recording's concealed frames can be placed: the start, a stretch, a loss, the end.
    private func logConcealment() {
        guard let jitter = setup.receive.snapshot.jitter else { return }
        Log.debug("audio", "slot \(playedSlots) after the first audio concealed: lost \(jitter.lost), stretched "
            + "\(jitter.stretched), late \(jitter.late), skipped \(jitter.skipped), target \(Int(jitter.targetDelayMs)) ms, "
            + "delay \(jitter.currentDelayMs.map { String(Int($0)) } ?? "-") ms")
    }

    private func play(_ samples: UnsafeBufferPointer<Int16>) {
        if !setup.stages.isEmpty {
            // The playout buffer is the engine's own (CallPlayout), so stages may change it in place.
            let mutable = UnsafeMutableBufferPointer(mutating: samples)
            for stage in setup.stages { stage.farEndPlayed(mutable) }
        }
        do {
            try setup.sink.write(samples)
        } catch {
            reportOnce("sink", "audio sink refused samples: \(error)")
        }
    }

    /// Logs a failure of one kind once per call (the audio path keeps going).
    private func reportOnce(_ kind: String, _ message: String) {
        guard reportedFailures.insert(kind).inserted else { return }
        Log.warning("call", "\(message) (reported once)")
    }
}
