/// Reception statistics for one remote source, per RFC 3550 appendix A.1 (sequence
/// validation with probation), A.3 (expected, lost, fraction lost) and A.8 (interarrival
/// jitter), producing the report blocks of our SR/RR.
///
/// Arrival times are monotonic seconds from the caller's clock; tests inject them.
public struct RTPReceiverStats: Sendable {
    /// A jump ahead of at least this many sequence numbers is treated as a possible restart.
    public static let maximumDropout = 3000
    /// A packet up to this many sequence numbers behind is a late or duplicate packet.
    public static let maximumMisorder = 100
    private static let sequenceModulus: Int64 = 1 << 16

    /// The source being measured; `record(_:payloadBytes:arrival:)` restarts on a change.
    public private(set) var ssrc: UInt32
    /// The media clock rate in Hz.
    public let clockRate: Int
    /// Sequential packets required before a new source is valid (RFC 3550 MIN_SEQUENTIAL).
    public let minimumSequential: Int

    private var probation: Int
    private var maxSequence: UInt16 = 0
    private var cycles: Int64 = 0
    private var baseSequence: Int64 = 0
    private var badSequence: Int64 = 1 << 16 + 1
    private var receivedPrior: Int64 = 0
    private var expectedPrior: Int64 = 0
    private var previousArrival: Double?
    private var previousTimestamp: UInt32 = 0
    private var seenFirstPacket = false

    /// Packets accepted as valid (after probation), duplicates included as in RFC 3550.
    public private(set) var receivedPackets: Int64 = 0
    /// Payload octets of the accepted packets.
    public private(set) var receivedOctets: Int64 = 0
    /// Interarrival jitter estimate in timestamp units (RFC 3550 A.8).
    public private(set) var jitter: Double = 0
    /// Fraction lost computed by the latest `makeReportBlock`, in 1/256 units.
    public private(set) var fractionLost: UInt8 = 0
    /// Monotonic arrival time of the latest packet of this source (valid or not), for
    /// media-timeout and one-way-audio detection.
    public private(set) var lastArrival: Double?
    /// The NTP timestamp of the latest SR from this source, for the LSR field.
    public private(set) var lastSenderReportNTP: NTPTimestamp?
    /// When that SR arrived (monotonic seconds), for the DLSR field.
    public private(set) var lastSenderReportArrival: Double?

    /// Statistics for a new source, in probation until `minimumSequential` packets arrive in
    /// sequence (1 accepts the first packet at once).
    public init(ssrc: UInt32, clockRate: Int, minimumSequential: Int = 2) {
        self.ssrc = ssrc
        self.clockRate = max(1, clockRate)
        self.minimumSequential = max(1, minimumSequential)
        self.probation = self.minimumSequential
    }

    /// Whether the source is still in probation (no report block is produced yet).
    public var isInProbation: Bool { probation > 0 }

    /// Wraps of the 16-bit sequence number seen so far.
    public var sequenceCycles: UInt32 { UInt32(truncatingIfNeeded: cycles >> 16) }

    /// The extended highest sequence number received: cycles in the high 16 bits.
    public var extendedHighestSequence: UInt32 { UInt32(truncatingIfNeeded: cycles + Int64(maxSequence)) }

    /// Packets expected from the first valid sequence number to the highest one.
    public var expectedPackets: Int64 { isInProbation ? 0 : cycles + Int64(maxSequence) - baseSequence + 1 }

    /// Expected minus received; negative when duplicates outnumber losses.
    public var cumulativeLost: Int64 { expectedPackets - receivedPackets }

    /// The jitter estimate in milliseconds.
    public var jitterMilliseconds: Double { jitter * 1000 / Double(clockRate) }

    /// Records a packet of this source. Returns true when the packet is valid: out of
    /// probation and not part of an unconfirmed sequence jump.
    @discardableResult
    public mutating func record(sequenceNumber: UInt16, timestamp: UInt32, arrival: Double, payloadBytes: Int = 0) -> Bool {
        lastArrival = arrival
        guard updateSequence(sequenceNumber) else { return false }
        receivedOctets += Int64(max(0, payloadBytes))
        updateJitter(timestamp: timestamp, arrival: arrival)
        return true
    }

    /// Records a packet; a different SSRC than the current one restarts the statistics for
    /// the new source (in probation).
    @discardableResult
    public mutating func record(_ header: RTPHeader, payloadBytes: Int, arrival: Double) -> Bool {
        if header.ssrc != ssrc {
            self = RTPReceiverStats(ssrc: header.ssrc, clockRate: clockRate, minimumSequential: minimumSequential)
        }
        return record(sequenceNumber: header.sequenceNumber, timestamp: header.timestamp, arrival: arrival, payloadBytes: payloadBytes)
    }

    /// Remembers an SR from this source so the next report block can carry LSR and DLSR.
    public mutating func recordSenderReport(_ report: RTCPSenderReport, arrival: Double) {
        lastSenderReportNTP = report.ntpTimestamp
        lastSenderReportArrival = arrival
    }

    /// The report block for this source at monotonic time `now`, closing the current
    /// reporting interval (fraction lost covers the packets since the previous call).
    /// Nil while the source is in probation.
    public mutating func makeReportBlock(now: Double) -> RTCPReportBlock? {
        guard !isInProbation else { return nil }
        let expected = expectedPackets
        let expectedInterval = expected - expectedPrior
        expectedPrior = expected
        let receivedInterval = receivedPackets - receivedPrior
        receivedPrior = receivedPackets
        let lostInterval = expectedInterval - receivedInterval
        fractionLost = expectedInterval == 0 || lostInterval <= 0 ? 0 : UInt8(min(255, (lostInterval << 8) / expectedInterval))
        let range = RTCPReportBlock.cumulativeLostRange
        let lost = Int32(min(max(cumulativeLost, Int64(range.lowerBound)), Int64(range.upperBound)))
        var delay: UInt32 = 0
        if let arrival = lastSenderReportArrival { delay = NTPTimestamp.compact(fromSeconds: now - arrival) }
        return RTCPReportBlock(
            ssrc: ssrc, fractionLost: fractionLost, cumulativeLost: lost, extendedHighestSequence: extendedHighestSequence,
            jitter: UInt32(min(jitter.rounded(), Double(UInt32.max))), lastSenderReport: lastSenderReportNTP?.compact ?? 0,
            delaySinceLastSenderReport: delay)
    }

    // MARK: RFC 3550 A.1

    private mutating func initSequence(_ sequence: UInt16) {
        baseSequence = Int64(sequence)
        maxSequence = sequence
        badSequence = Self.sequenceModulus + 1
        cycles = 0
        receivedPackets = 0
        receivedOctets = 0
        receivedPrior = 0
        expectedPrior = 0
        previousArrival = nil
    }

    private mutating func updateSequence(_ sequence: UInt16) -> Bool {
        if !seenFirstPacket {
            // A new source: the first packet starts probation (RFC 3550 A.1, max_seq = seq - 1).
            seenFirstPacket = true
            maxSequence = sequence &- 1
        }
        let delta = Int(sequence &- maxSequence)
        if probation > 0 {
            if sequence == maxSequence &+ 1 {
                probation -= 1
                maxSequence = sequence
                if probation == 0 {
                    initSequence(sequence)
                    receivedPackets += 1
                    return true
                }
            } else {
                probation = minimumSequential - 1
                maxSequence = sequence
            }
            return false
        } else if delta < Self.maximumDropout {
            if sequence < maxSequence { cycles += Self.sequenceModulus }
            maxSequence = sequence
        } else if delta <= Int(Self.sequenceModulus) - Self.maximumMisorder {
            if Int64(sequence) == badSequence {
                initSequence(sequence)  // two sequential packets after a jump: the source restarted
            } else {
                badSequence = (Int64(sequence) + 1) & (Self.sequenceModulus - 1)
                return false
            }
        }
        // Otherwise a duplicate or reordered packet: counted, as in RFC 3550.
        receivedPackets += 1
        return true
    }

    // MARK: RFC 3550 A.8

    private mutating func updateJitter(timestamp: UInt32, arrival: Double) {
        defer {
            previousArrival = arrival
            previousTimestamp = timestamp
        }
        guard let previousArrival, arrival.isFinite else { return }
        // D(i,j) = (Rj - Ri) - (Sj - Si), in timestamp units; the wrapping difference keeps
        // timestamp wraparound harmless.
        let mediaDelta = Double(Int32(bitPattern: timestamp &- previousTimestamp))
        let difference = abs((arrival - previousArrival) * Double(clockRate) - mediaDelta)
        jitter += (difference - jitter) / 16
    }
}
