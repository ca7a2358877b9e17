import AudioCodec
import AudioJitter
import AudioRTP
import Synchronization

/// The receive side of a call: the jitter buffer, RTP receive statistics and counters, under one
/// `Mutex`. The media clock thread records packets and RTCP (`CallMediaReceiver`), plays out and
/// builds report blocks; the loop reads the last arrival (media timeout) and any thread the
/// counters. Every method holds the lock only for a few field updates or one jitter buffer
/// operation; decoding happens outside it. A class because several threads hold the instance.
package final class CallReceiveState: Sendable {
    /// Counters for `CallMediaStatistics`.
    package struct Snapshot {
        var packetsReceived = 0
        var bytesReceived = 0
        var packetsLost = 0
        var fractionLost = 0.0
        var jitterMs = 0.0
        var roundTripTime: Double?
        var remoteReport: RTCPReportBlock?
        var rtcpReceived = 0
        var goodbyeReceived = false
        var packetsDiscarded = 0
        var framesDecoded = 0
        /// Lost slots rebuilt from the next packet's in-band FEC.
        var framesRecoveredFEC = 0
        /// Lost slots filled by the codec's concealment (faded over long runs).
        var framesConcealed = 0
        package var jitter: JitterBufferStatistics?
    }

    /// What the mutex guards.
    private struct Guarded {
        var jitter: JitterBuffer
        var receiver: RTPReceiverStats?
        var counters = Snapshot()
        var lastArrival: Double?
        var audioSeen = false
        var roundTrip = CallReceiveRoundTrip()
    }

    private let clockRate: Int
    /// Opus: a packet may carry in-band FEC for the one before it.
    private let opus: Bool
    private let state: Mutex<Guarded>

    /// State for a stream on `codecs`' clock, with a jitter buffer tuned by `jitter`.
    package init(codecs: CallCodecSet, jitter template: JitterBufferConfiguration) throws(CallMediaError) {
        clockRate = codecs.codec.clockRate
        if case .opus = codecs.codec { opus = true } else { opus = false }
        let jitter: JitterBuffer
        do {
            jitter = try JitterBuffer(configuration: codecs.jitterConfiguration(from: template))
        } catch {
            throw .invalidConfiguration(error.description)
        }
        state = Mutex(Guarded(jitter: jitter))
    }

    // MARK: Media clock thread: receive

    /// What `record` found.
    package struct Recorded {
        /// The call's first RTP packet (audio or telephone event).
        let firstPacket: Bool
        /// The call's first audio packet.
        let firstAudio: Bool
    }

    /// Records an RTP packet's reception (audio or telephone event); `audioPayload`, when given,
    /// is copied into the jitter buffer's reused storage. `arrival` is when it was read;
    /// `earliestArrival`, when given, when the read before it happened (the packet came in
    /// between): an audio packet is then accounted at the jitter buffer's `arrivalEstimate`.
    package func record(_ header: RTPHeader, payloadBytes: Int, audioPayload: ArraySlice<UInt8>?, arrival: Double,
                earliestArrival: Double? = nil) -> Recorded {
        state.withLock { state in
            let firstAudio = audioPayload != nil && !state.audioSeen
            if firstAudio { state.audioSeen = true }
            var accounted = arrival
            if audioPayload != nil, let earliestArrival {
                accounted = state.jitter.arrivalEstimate(timestamp: header.timestamp, earliest: earliestArrival, latest: arrival)
            }
            let first = recordLocked(&state, header, payloadBytes: payloadBytes, audioPayload: audioPayload, arrival: accounted)
            state.lastArrival = arrival
            return Recorded(firstPacket: first, firstAudio: firstAudio)
        }
    }

    private func recordLocked(_ state: inout Guarded, _ header: RTPHeader, payloadBytes: Int, audioPayload: ArraySlice<UInt8>?,
                              arrival: Double) -> Bool {
        let first = state.lastArrival == nil
        state.lastArrival = arrival
        state.counters.packetsReceived += 1
        state.counters.bytesReceived += payloadBytes
        if state.receiver == nil { state.receiver = RTPReceiverStats(ssrc: header.ssrc, clockRate: clockRate) }
        state.receiver?.record(header, payloadBytes: payloadBytes, arrival: arrival)
        if let audioPayload {
            audioPayload.withUnsafeBytes { bytes in
                // The first packet with in-band FEC: from now on the buffer keeps the next packet
                // in hand, so a lost frame can be rebuilt from it (CallPlayout).
                if opus && !state.jitter.nextPacketRepairsLoss && OpusPacketFEC.carriesFEC(bytes) {
                    state.jitter.nextPacketRepairsLoss = true
                }
                _ = state.jitter.insert(seq: header.sequenceNumber, timestamp: header.timestamp, payloadBytes: bytes,
                                        arrival: arrival, ssrc: header.ssrc)
            }
        }
        return first
    }

    /// Counts a datagram that was dropped (failed SRTP, unparsable, unknown payload type).
    func discard() {
        state.withLock { $0.counters.packetsDiscarded += 1 }
    }

    /// Records a received RTCP compound: the peer's SR (for our LSR/DLSR), the round-trip time and
    /// the peer's report about our stream (`ourSSRC`) and its BYE. `arrivalNTP` is the read time;
    /// `earliestNTP`, when the compound was read in a periodic drain, the drain before it: the RTT
    /// is then estimated from the bounds of the recent reports (`CallReceiveRoundTrip`).
    func recordRTCP(_ packets: [RTCPPacket], ourSSRC: UInt32, arrival: Double, arrivalNTP: NTPTimestamp,
                    earliestNTP: NTPTimestamp? = nil) {
        state.withLock { state in
            state.counters.rtcpReceived += 1
            for packet in packets {
                let blocks: [RTCPReportBlock]
                switch packet {
                case .senderReport(let report):
                    if report.ssrc == state.receiver?.ssrc { state.receiver?.recordSenderReport(report, arrival: arrival) }
                    blocks = report.reportBlocks
                case .receiverReport(let report):
                    blocks = report.reportBlocks
                case .goodbye:
                    state.counters.goodbyeReceived = true
                    continue
                default:
                    continue
                }
                for block in blocks where block.ssrc == ourSSRC {
                    state.counters.remoteReport = block
                    if let upper = RoundTripTime.seconds(from: block, arrival: arrivalNTP) {
                        let lower = earliestNTP.flatMap { RoundTripTime.seconds(from: block, arrival: $0) }
                        state.counters.roundTripTime = state.roundTrip.record(lower: lower, upper: upper)
                    }
                }
            }
        }
    }

    /// Whether the jitter buffer keeps the next packet in hand for FEC (the stream carries it).
    var nextPacketRepairsLoss: Bool { state.withLock { $0.jitter.nextPacketRepairsLoss } }

    /// When the latest RTP packet arrived (monotonic seconds), nil before the first.
    var lastRTPArrival: Double? { state.withLock { $0.lastArrival } }

    // MARK: Media clock thread: playout

    /// The jitter buffer's output for the slot at `now`.
    func pop(now: Double) -> JitterOutput {
        state.withLock { $0.jitter.pop(now: now) }
    }

    /// How one playout slot was filled, for the counters.
    enum PlayedSlot {
        /// Decoded from its own packet.
        case decoded
        /// Rebuilt from the next packet's in-band FEC.
        case recoveredFEC
        /// Concealed by the codec (no packet, or one without FEC).
        case concealed
    }

    /// Counts one played slot.
    func count(_ slot: PlayedSlot) {
        state.withLock { state in
            switch slot {
            case .decoded: state.counters.framesDecoded += 1
            case .recoveredFEC: state.counters.framesRecoveredFEC += 1
            case .concealed: state.counters.framesConcealed += 1
            }
        }
    }

    /// The report block about the peer's stream for our next SR/RR (nil before it is valid).
    func makeReportBlock(now: Double) -> RTCPReportBlock? {
        state.withLock { $0.receiver?.makeReportBlock(now: now) }
    }

    // MARK: Any thread

    /// The counters now.
    package var snapshot: Snapshot {
        state.withLock { state in
            var result = state.counters
            if let receiver = state.receiver {
                result.packetsLost = Int(receiver.cumulativeLost)
                let expected = receiver.expectedPackets
                result.fractionLost = expected > 0 ? min(1, max(0, Double(receiver.cumulativeLost) / Double(expected))) : 0
                result.jitterMs = receiver.jitterMilliseconds
            }
            result.jitter = state.jitter.statistics
            return result
        }
    }
}
