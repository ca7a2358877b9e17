import AudioJitter
import AudioRTP
import Foundation

/// The receive side of a call shared by the loop thread (which inserts packets and reads RTCP)
/// and the audio thread (which plays out and builds report blocks), under one lock. Every
/// method holds the lock only for a few field updates or one jitter buffer operation.
final class CallReceiveState: @unchecked Sendable {
    /// Counters for `CallMediaStatistics`.
    struct Snapshot {
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
        var jitter: JitterBufferStatistics?
    }

    private let lock = NSLock()
    private let clockRate: Int
    private var jitter: JitterBuffer
    private var receiver: RTPReceiverStats?
    private var counters = Snapshot()
    private var lastArrival: Double?

    /// State for a stream on `codecs`' clock, with a jitter buffer tuned by `jitter`.
    init(codecs: CallCodecSet, jitter template: JitterBufferConfiguration) throws(CallMediaError) {
        clockRate = codecs.codec.clockRate
        do {
            jitter = try JitterBuffer(configuration: codecs.jitterConfiguration(from: template))
        } catch {
            throw .invalidConfiguration(error.description)
        }
    }

    // MARK: Loop thread

    /// Records an RTP packet's reception (audio or telephone event); `audioPayload`, when given,
    /// goes to the jitter buffer. Returns true for the first packet of the call.
    func record(_ header: RTPHeader, payloadBytes: Int, audioPayload: [UInt8]?, arrival: Double) -> Bool {
        lock.withLock {
            let first = lastArrival == nil
            lastArrival = arrival
            counters.packetsReceived += 1
            counters.bytesReceived += payloadBytes
            if receiver == nil { receiver = RTPReceiverStats(ssrc: header.ssrc, clockRate: clockRate) }
            receiver?.record(header, payloadBytes: payloadBytes, arrival: arrival)
            if let audioPayload {
                jitter.insert(seq: header.sequenceNumber, timestamp: header.timestamp, payload: audioPayload,
                              arrival: arrival, ssrc: header.ssrc)
            }
            return first
        }
    }

    /// Counts a datagram that was dropped (failed SRTP, unparsable, unknown payload type).
    func discard() {
        lock.withLock { counters.packetsDiscarded += 1 }
    }

    /// Records a received RTCP compound: the peer's SR (for our LSR/DLSR), the round-trip time and
    /// the peer's report about our stream (`ourSSRC`) and its BYE.
    func recordRTCP(_ packets: [RTCPPacket], ourSSRC: UInt32, arrival: Double, arrivalNTP: NTPTimestamp) {
        lock.withLock {
            counters.rtcpReceived += 1
            for packet in packets {
                let blocks: [RTCPReportBlock]
                switch packet {
                case .senderReport(let report):
                    if report.ssrc == receiver?.ssrc { receiver?.recordSenderReport(report, arrival: arrival) }
                    blocks = report.reportBlocks
                case .receiverReport(let report):
                    blocks = report.reportBlocks
                case .goodbye:
                    counters.goodbyeReceived = true
                    continue
                default:
                    continue
                }
                for block in blocks where block.ssrc == ourSSRC {
                    counters.remoteReport = block
                    if let rtt = RoundTripTime.seconds(from: block, arrival: arrivalNTP) { counters.roundTripTime = rtt }
                }
            }
        }
    }

    /// When the latest RTP packet arrived (monotonic seconds), nil before the first.
    var lastRTPArrival: Double? { lock.withLock { lastArrival } }

    // MARK: Audio thread

    /// The jitter buffer's output for the slot at `now`.
    func pop(now: Double) -> JitterOutput {
        lock.withLock { jitter.pop(now: now) }
    }

    /// Counts a frame decoded from a received packet.
    func countDecodedFrame() {
        lock.withLock { counters.framesDecoded += 1 }
    }

    /// The report block about the peer's stream for our next SR/RR (nil before it is valid).
    func makeReportBlock(now: Double) -> RTCPReportBlock? {
        lock.withLock { receiver?.makeReportBlock(now: now) }
    }

    // MARK: Any thread

    /// The counters now.
    var snapshot: Snapshot {
        lock.withLock {
            var result = counters
            if let receiver {
                result.packetsLost = Int(receiver.cumulativeLost)
                let expected = receiver.expectedPackets
                result.fractionLost = expected > 0 ? min(1, max(0, Double(receiver.cumulativeLost) / Double(expected))) : 0
                result.jitterMs = receiver.jitterMilliseconds
            }
            result.jitter = jitter.statistics
            return result
        }
    }
}
