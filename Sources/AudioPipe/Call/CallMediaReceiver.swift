import AudioRTP
import AudioSDP
import MainLoop

/// The media clock thread's half of a call's receive path: SRTP/SRTCP unprotect, RTP and RTCP
/// parsing, the jitter buffer insert and the receive statistics (`CallReceiveState`), RFC 4733
/// DTMF. Datagrams come from libnice's buffer while the call's sockets are on the media clock's
/// context, or from the loop's `CallReceiveInbox` before that; each is copied once, into
/// `decrypted`, and unprotected there. DTLS datagrams (rare once keyed: a retransmitted flight,
/// close_notify) are copied and handed to the loop, where DTLS runs.
///
/// Runs on: the media clock thread only. It is not Sendable: made on the loop when DTLS is up,
/// handed over with `sending` (with the SRTP receiver it owns) to the audio engine, which keeps
/// it with its other clock-thread state. A class because it owns the SRTP receiver and buffers.
final class CallMediaReceiver {
    /// What the receiver needs from the call (all Sendable: shared with the loop side).
    struct Context: Sendable {
        let negotiated: NegotiatedAudio
        let receive: CallReceiveState
        let inbox: CallReceiveInbox
        let ourSSRC: UInt32
        let ntpClock: NTPClock
        /// A public event (first packet, DTMF digit); called on the media clock thread.
        let event: @Sendable (CallMediaEvent) -> Void
        /// A DTLS datagram for the loop (the closure hops there).
        let dtls: @Sendable ([UInt8]) -> Void
    }

    /// What one datagram turned out to be, for the engine.
    enum Outcome: Equatable {
        /// Nothing was received.
        case nothing
        /// An audio packet went into the jitter buffer (`first`: the call's first).
        case audio(first: Bool)
        /// Anything else (telephone event, RTCP, DTLS, dropped).
        case other
    }

    private let srtp: SRTPReceiver
    private let context: Context
    /// Every SRTP/SRTCP datagram is copied here and unprotected in place (storage reused).
    private var decrypted: [UInt8] = []
    private var dtmf = DTMFReceiver()

    /// Bytes reserved for `decrypted`: a full Ethernet-sized datagram; a larger one grows it once.
    static let receiveCapacity = 1_500

    init(srtp: sending SRTPReceiver, context: Context) {
        self.srtp = srtp
        self.context = context
        decrypted.reserveCapacity(Self.receiveCapacity)
    }

    /// Handles the datagrams the loop queued, in order; returns `.nothing` when there was none,
    /// else whether any was audio and whether the call's first audio packet was among them.
    func receiveQueued() -> Outcome {
        var outcome = Outcome.nothing
        for entry in context.inbox.take() {
            let one = entry.datagram.withUnsafeBytes { receive($0, arrival: entry.arrival) }
            switch (outcome, one) {
            case (_, .audio(first: true)): outcome = one
            case (.audio, _): break
            default: outcome = one
            }
        }
        return outcome
    }

    /// Demultiplexes one datagram by its first byte (RFC 7983) and handles it; `bytes` is valid
    /// only during the call. `arrival` is when it was read; `earliestArrival`, when it was read in
    /// a periodic drain, when the drain before ran (see `CallReceiveState.record`). Never returns
    /// `.nothing`.
    func receive(_ bytes: UnsafeRawBufferPointer, arrival: Double, earliestArrival: Double? = nil) -> Outcome {
        switch DatagramKind.classify(bytes) {
        case .rtp:
            return receiveRTP(bytes, arrival: arrival, earliestArrival: earliestArrival)
        case .rtcp:
            receiveRTCP(bytes, arrival: arrival, earliestArrival: earliestArrival)
        case .dtls:
            context.dtls(Array(bytes))
        case .stun, .zrtp, .turnChannel, .unknown:
            context.receive.discard()
        }
        return .other
    }

    private func receiveRTP(_ bytes: UnsafeRawBufferPointer, arrival: Double, earliestArrival: Double?) -> Outcome {
        guard unprotect(bytes, with: srtp.unprotectRTP), let (header, range) = try? RTPHeader.parse(decrypted) else {
            context.receive.discard()
            return .other
        }
        let negotiated = context.negotiated
        let recorded: CallReceiveState.Recorded
        if header.payloadType == negotiated.codec.payloadType {
            recorded = context.receive.record(header, payloadBytes: range.count, audioPayload: decrypted[range], arrival: arrival,
                                              earliestArrival: earliestArrival)
        } else if header.payloadType == negotiated.telephoneEventPT {
            recorded = context.receive.record(header, payloadBytes: range.count, audioPayload: nil, arrival: arrival)
            receiveTelephoneEvent(header, payload: decrypted[range])
        } else {
            context.receive.discard()
            return .other
        }
        if recorded.firstPacket { context.event(.firstPacketReceived) }
        return header.payloadType == negotiated.codec.payloadType ? .audio(first: recorded.firstAudio) : .other
    }

    private func receiveTelephoneEvent(_ header: RTPHeader, payload: ArraySlice<UInt8>) {
        do {
            let key = try dtmf.receive(payload: payload, timestamp: header.timestamp, sequenceNumber: header.sequenceNumber,
                                       marker: header.marker)
            if let digit = key?.digit { context.event(.dtmfReceived(digit)) }
        } catch {
            Log.debug("call", "ignoring telephone-event packet: \(error)")
        }
    }

    private func receiveRTCP(_ bytes: UnsafeRawBufferPointer, arrival: Double, earliestArrival: Double?) {
        guard unprotect(bytes, with: srtp.unprotectRTCP), let packets = try? RTCPPacket.parseCompound(decrypted) else {
            context.receive.discard()
            return
        }
        context.receive.recordRTCP(packets, ourSSRC: context.ourSSRC, arrival: arrival,
                                   arrivalNTP: context.ntpClock.timestamp(atMonotonic: arrival),
                                   earliestNTP: earliestArrival.map { context.ntpClock.timestamp(atMonotonic: $0) })
    }

    /// Copies `bytes` into `decrypted` (reusing its storage) and unprotects it there.
    private func unprotect(_ bytes: UnsafeRawBufferPointer, with unprotect: (inout [UInt8]) throws(SRTPError) -> Void) -> Bool {
        decrypted.removeAll(keepingCapacity: true)
        decrypted.append(contentsOf: bytes)
        do {
            try unprotect(&decrypted)
            return true
        } catch {
            return false
        }
    }
}
